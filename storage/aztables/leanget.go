package aztables

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"io"
	"net/http"
	"net/url"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// leanGet sends Get Entity, the request of every point read, without
// azcore's pipeline (issue 13: a point select on Azure should cost the
// gateway no more than a raw SDK GetEntity). The pipeline's policies are
// work per request this package does not use on a read: telemetry and
// logging with no listener, a tracing span with no tracer, a retry policy
// that is disabled (do retries), a body-download policy and the capture
// policy that hands the body to this package anyway, and the SDK's
// decoding of a stub. Without them a Get costs about a third of the CPU
// (BenchmarkGetCPU: about 20 µs and 127 allocations through the SDK on
// this machine, see docs/benchmarks.md).
//
// The request is the SDK's, byte for byte (TestLeanGetRequest sends every
// kind of key both ways and compares them): the URL built as the SDK's
// generated client builds it (keys with ' doubled and path-escaped, the
// empty PartitionKey as ” without the SDK's placeholder, $select and a
// SAS in one sorted query), the same headers (x-ms-version 2019-02-02,
// DataServiceVersion 3.0, Accept with minimal metadata, the SDK's
// User-Agent), SharedKeyLite signed as the SDK's credential policy signs
// it, sent through the same transport (Options.HTTPClient or
// newTransport), or, with newTransport and no proxy, written by
// Request.Write on the store's own connections (leanconn.go). Its outcomes are the SDK's too: a response other than
// 200 becomes the same *azcore.ResponseError (runtime.NewResponseError),
// which mapError maps; a transport error or a body cut short is returned
// as is and mapError classifies it as it does behind the pipeline. Retries,
// per-attempt timeouts and the caller's context stay with do, around
// either path.
//
// Only Shared Key and SAS stores take it; a store authenticated by
// Microsoft Entra ID (a bearer token the SDK's policy fetches and
// refreshes) keeps the SDK's pipeline, and so do all other operations.
type leanGet struct {
	transport policy.Transporter
	direct    *directPool // the exchange on the calling goroutine (leanconn.go), nil: through transport
	endpoint  string      // the Table endpoint without query
	base      url.URL     // endpoint parsed, its path without a trailing slash
	sas       url.Values  // the SAS query, or nil
	account   string
	key       []byte    // the decoded account key, or nil (SAS)
	signers   sync.Pool // of *signer
}

// sdkUserAgent is the User-Agent the SDK's telemetry policy sends:
// azsdk-go-aztables/<version> (<go version>; <GOOS>).
var sdkUserAgent = func() string {
	const module = "github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	v := "v1.4.1"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == module {
				v = d.Version
				if d.Replace != nil && d.Replace.Version != "" {
					v = d.Replace.Version
				}
			}
		}
	}
	return "azsdk-go-aztables/" + v + " (" + goruntime.Version() + "; " + goruntime.GOOS + ")"
}()

// newLeanGet returns the lean Get for a store with a Shared Key (key) or
// a SAS, or nil for any other credential.
func newLeanGet(transport policy.Transporter, cs *connString, token bool) *leanGet {
	if token {
		return nil
	}
	l := &leanGet{transport: transport, endpoint: cs.endpoint, account: cs.accountName}
	base, err := url.Parse(cs.endpoint)
	if err != nil || base.RawQuery != "" || base.Fragment != "" || base.Opaque != "" || base.User != nil {
		return nil
	}
	l.base = *base
	l.base.Path = strings.TrimSuffix(base.Path, "/")
	l.base.RawPath = strings.TrimSuffix(base.EscapedPath(), "/")
	switch {
	case cs.accountKey != "":
		key, err := base64.StdEncoding.DecodeString(cs.accountKey)
		if err != nil {
			return nil
		}
		l.key = key
	case cs.sas != "":
		q, err := url.ParseQuery(cs.sas)
		if err != nil {
			return nil
		}
		l.sas = q
	default:
		return nil
	}
	l.signers.New = func() any { return &signer{mac: hmac.New(sha256.New, l.key)} }
	return l
}

// get sends Get Entity of (pk, rk) in table (as the service spells it)
// with the $select list sel ("": every property) and returns the
// response's body and ETag header.
func (l *leanGet) get(ctx context.Context, table, pk, rk, sel string) (body []byte, etag string, err error) {
	req, err := l.request(ctx, table, pk, rk, sel, time.Now())
	if err != nil {
		return nil, "", err
	}
	if d := l.direct; d != nil && !d.off.Load() {
		resp, body, err := d.roundTrip(ctx, req)
		if err != errDirectUnsupported {
			if err != nil {
				return nil, "", err
			}
			if resp.StatusCode != http.StatusOK {
				resp.Body = io.NopCloser(bytes.NewReader(body))
				return nil, "", runtime.NewResponseError(resp)
			}
			return body, resp.Header.Get("ETag"), nil
		}
		// The service answers in another protocol: the transport from
		// now on (the pool is off).
	}
	resp, err := l.transport.Do(req)
	if err != nil {
		return nil, "", err
	}
	if resp.StatusCode != http.StatusOK {
		// Read and close the body first, as the SDK's body-download
		// policy does: the error keeps it (mapError reads the message),
		// and an error that never reaches mapError (the caller's context
		// ended) must not hold the connection.
		if _, err := runtime.Payload(resp); err != nil {
			return nil, "", err
		}
		return nil, "", runtime.NewResponseError(resp)
	}
	body, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, "", err
	}
	return body, resp.Header.Get("ETag"), nil
}

// request builds the signed request, dated now.
func (l *leanGet) request(ctx context.Context, table, pk, rk, sel string, now time.Time) (*http.Request, error) {
	// The generated client's path: the table and both keys path-escaped,
	// the keys' quotes doubled first (the SDK's prepareKey), joined to the
	// endpoint's path as runtime.JoinPaths joins them (its path.Join
	// changes nothing in one segment that holds no slash: PathEscape
	// escapes any slash in a key). It is set as the URL's RawPath, beside
	// its unescaped Path, so that EscapedPath (the request line, the
	// signature) is that text as after url.Parse of the joined string,
	// without the joining and parsing (issue 13: fixed costs of an Azure
	// point select). TestLeanGetRequest compares the result with the
	// SDK's request.
	pk, rk = strings.ReplaceAll(pk, "'", "''"), strings.ReplaceAll(rk, "'", "''")
	var sb strings.Builder
	sb.Grow(2*(len(l.base.RawPath)+len(table)+40) + 4*(len(pk)+len(rk)))
	sb.WriteString(l.base.RawPath)
	sb.WriteString("/")
	sb.WriteString(url.PathEscape(table))
	sb.WriteString("(PartitionKey='")
	sb.WriteString(url.PathEscape(pk))
	sb.WriteString("',RowKey='")
	sb.WriteString(url.PathEscape(rk))
	sb.WriteString("')")
	raw := sb.Len()
	sb.WriteString(l.base.Path)
	sb.WriteString("/")
	sb.WriteString(table)
	sb.WriteString("(PartitionKey='")
	sb.WriteString(pk)
	sb.WriteString("',RowKey='")
	sb.WriteString(rk)
	sb.WriteString("')")
	both := sb.String()
	u := l.base
	u.RawPath, u.Path = both[:raw], both[raw:]
	if l.sas != nil || sel != "" {
		q := make(url.Values, len(l.sas)+1)
		for k, v := range l.sas {
			q[k] = v
		}
		if sel != "" {
			q.Set("$select", sel)
		}
		u.RawQuery = q.Encode()
	}
	// The headers, their values in one array: x-ms-version and
	// DataServiceVersion spelled as the SDK's generated client sets them
	// (not canonicalized), the others canonical as Header.Set makes them.
	var vals *[6]string
	h := make(http.Header, 6)
	if l.key != nil {
		date := now.UTC().Format(http.TimeFormat)
		vals = &[6]string{"2019-02-02", "3.0", "application/json;odata=minimalmetadata", sdkUserAgent, date,
			"SharedKeyLite " + l.account + ":" + l.sign(date, &u)}
		h["X-Ms-Date"] = vals[4:5:5]
		h["Authorization"] = vals[5:6:6]
	} else {
		vals = &[6]string{"2019-02-02", "3.0", "application/json;odata=minimalmetadata", sdkUserAgent}
	}
	h["x-ms-version"] = vals[0:1:1]
	h["DataServiceVersion"] = vals[1:2:2]
	h["Accept"] = vals[2:3:3]
	h["User-Agent"] = vals[3:4:4]
	req := (&http.Request{
		Method:     http.MethodGet,
		URL:        &u,
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
		Header:     h,
		Host:       strings.TrimSuffix(u.Host, ":"), // as NewRequest's removeEmptyPort
	}).WithContext(ctx)
	return req, nil
}

// signer is one HMAC of the account key with the buffers of a signature,
// reused across requests.
type signer struct {
	mac hash.Hash
	buf []byte
	sum [sha256.Size]byte
}

// sign computes the SharedKeyLite signature of a request as the SDK's
// credential policy does: HMAC-SHA256 of the date and the canonicalized
// resource, /account followed by the escaped path (a Get Entity has no
// comp= parameter, the only one the resource includes).
func (l *leanGet) sign(date string, u *url.URL) string {
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	sg := l.signers.Get().(*signer)
	sg.mac.Reset()
	sg.buf = append(sg.buf[:0], date...)
	sg.buf = append(sg.buf, "\n/"...)
	sg.buf = append(sg.buf, l.account...)
	sg.buf = append(sg.buf, path...)
	sg.mac.Write(sg.buf)
	sig := base64.StdEncoding.EncodeToString(sg.mac.Sum(sg.sum[:0]))
	l.signers.Put(sg)
	return sig
}
