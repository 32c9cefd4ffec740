package aztables

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/sqlgw/sqlgw/storage"
)

// connString is a parsed storage connection string.
type connString struct {
	endpoint    string // Table endpoint URL without query, e.g. https://acct.table.core.windows.net
	accountName string
	accountKey  string // Shared Key, base64 (empty for SAS)
	sas         string // SharedAccessSignature query, without '?'
}

// sasSignature returns the sig= value of the SAS (a secret), or "".
func (c *connString) sasSignature() string {
	if c.sas == "" {
		return ""
	}
	q, err := url.ParseQuery(c.sas)
	if err != nil {
		return ""
	}
	return q.Get("sig")
}

// parseConnectionString parses the Azure Storage connection string forms
// listed on Open. The SDK's own parser is not used: it ignores TableEndpoint
// for SAS strings and rejects UseDevelopmentStorage. Errors never quote the
// string (it holds the key).
func parseConnectionString(s string) (*connString, error) {
	bad := func(why string) error {
		return fmt.Errorf("%w: aztables: connection string: %s", storage.ErrInvalid, why)
	}
	kv := map[string]string{}
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return nil, bad("every part must be Key=Value")
		}
		// Keys are case-insensitive in the .NET parser; normalise the ones we know.
		kv[canonicalKey(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	if strings.EqualFold(kv["UseDevelopmentStorage"], "true") {
		return &connString{
			endpoint:    "http://127.0.0.1:10002/devstoreaccount1",
			accountName: "devstoreaccount1",
			accountKey:  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
		}, nil
	}
	c := &connString{accountName: kv["AccountName"], accountKey: kv["AccountKey"], sas: strings.TrimPrefix(kv["SharedAccessSignature"], "?")}
	if c.accountKey != "" && c.sas != "" {
		return nil, bad("give either AccountKey or SharedAccessSignature, not both")
	}
	if c.accountKey == "" && c.sas == "" {
		return nil, bad("AccountKey or SharedAccessSignature is required")
	}
	if c.accountKey != "" && c.accountName == "" {
		return nil, bad("AccountName is required with AccountKey")
	}
	if ep := kv["TableEndpoint"]; ep != "" {
		u, err := url.Parse(ep)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, bad("TableEndpoint must be an http(s) URL")
		}
		if u.RawQuery != "" {
			return nil, bad("TableEndpoint must not carry a query; put a SAS in SharedAccessSignature")
		}
		c.endpoint = strings.TrimRight(ep, "/")
	} else {
		if c.accountName == "" {
			return nil, bad("AccountName or TableEndpoint is required")
		}
		proto := kv["DefaultEndpointsProtocol"]
		if proto == "" {
			proto = "https"
		}
		if proto != "http" && proto != "https" {
			return nil, bad("DefaultEndpointsProtocol must be http or https")
		}
		suffix := kv["EndpointSuffix"]
		if suffix == "" {
			suffix = "core.windows.net"
		}
		c.endpoint = proto + "://" + c.accountName + ".table." + suffix
	}
	return c, nil
}

func canonicalKey(k string) string {
	for _, known := range []string{"DefaultEndpointsProtocol", "AccountName", "AccountKey", "EndpointSuffix",
		"TableEndpoint", "SharedAccessSignature", "UseDevelopmentStorage"} {
		if strings.EqualFold(k, known) {
			return known
		}
	}
	return k
}
