package aztables

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/sqlgw/sqlgw/storage"
)

// Microsoft Entra ID credentials
//
// A store spec that is only an endpoint URL, such as
// https://ACCOUNT.table.core.windows.net or the Cosmos DB Table API's
// https://ACCOUNT.table.cosmos.azure.com:443/, authenticates with a token
// credential: Options.Credential when set, otherwise the chain of the
// Azure SDK's DefaultAzureCredential, built here from the SDK's own
// credential types so that errors name each credential that failed:
//
//	EnvironmentCredential        AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET
//	                             (or AZURE_CLIENT_CERTIFICATE_PATH)
//	WorkloadIdentityCredential   AZURE_FEDERATED_TOKEN_FILE (the Kubernetes webhook's variables)
//	ManagedIdentityCredential    the host's identity (AZURE_CLIENT_ID picks a user-assigned one)
//	AzureCLICredential           az login
//	AzureDeveloperCLICredential  azd auth login
//
// in that order, the first that gets a token being used from then on.
// AZURE_TOKEN_CREDENTIALS selects a subset as the SDK does: "prod" (the
// first three), "dev" (the CLIs), or one credential's name. While later
// credentials remain, the managed identity gets ManagedIdentityProbe to
// answer (off Azure, the instance metadata endpoint does not answer at
// all). A URL with a SAS query (...?sv=...&sig=...) uses the SAS instead.
//
// Errors never hold a secret: the values of the secret variables
// (AZURE_CLIENT_SECRET, AZURE_PASSWORD, AZURE_CLIENT_CERTIFICATE_PASSWORD)
// and SAS signatures are replaced by "***" in every message kept.

// Credential names of the default chain, in chain order.
const (
	CredEnvironment       = "EnvironmentCredential"
	CredWorkloadIdentity  = "WorkloadIdentityCredential"
	CredManagedIdentity   = "ManagedIdentityCredential"
	CredAzureCLI          = "AzureCLICredential"
	CredAzureDeveloperCLI = "AzureDeveloperCLICredential"
)

var defaultChain = []string{CredEnvironment, CredWorkloadIdentity, CredManagedIdentity, CredAzureCLI, CredAzureDeveloperCLI}

// ManagedIdentityProbe bounds a managed identity's first attempt while
// other credentials follow it in the chain.
var ManagedIdentityProbe = 3 * time.Second

// secretEnv lists the environment variables whose values are secrets.
var secretEnv = []string{"AZURE_CLIENT_SECRET", "AZURE_PASSWORD", "AZURE_CLIENT_CERTIFICATE_PASSWORD"}

// SelectCredentials returns the names of the credentials the default
// chain tries, in order, given the environment (os.LookupEnv in
// production): all of them, or the subset AZURE_TOKEN_CREDENTIALS names.
func SelectCredentials(lookup func(string) (string, bool)) ([]string, error) {
	v, ok := lookup("AZURE_TOKEN_CREDENTIALS")
	if !ok || strings.TrimSpace(v) == "" {
		return append([]string(nil), defaultChain...), nil
	}
	switch v = strings.TrimSpace(v); {
	case strings.EqualFold(v, "prod"):
		return []string{CredEnvironment, CredWorkloadIdentity, CredManagedIdentity}, nil
	case strings.EqualFold(v, "dev"):
		return []string{CredAzureCLI, CredAzureDeveloperCLI}, nil
	}
	for _, n := range defaultChain {
		if strings.EqualFold(v, n) {
			return []string{n}, nil
		}
	}
	return nil, fmt.Errorf("%w: aztables: AZURE_TOKEN_CREDENTIALS %q is not \"prod\", \"dev\" or one of %s", storage.ErrInvalid, v, strings.Join(defaultChain, ", "))
}

// credentialFactory builds one credential of the chain; tests replace them.
type credentialFactory func(lookup func(string) (string, bool), moreFollow bool) (azcore.TokenCredential, error)

var credentialFactories = map[string]credentialFactory{
	CredEnvironment: func(func(string) (string, bool), bool) (azcore.TokenCredential, error) {
		return azidentity.NewEnvironmentCredential(nil)
	},
	CredWorkloadIdentity: func(func(string) (string, bool), bool) (azcore.TokenCredential, error) {
		return azidentity.NewWorkloadIdentityCredential(nil)
	},
	CredManagedIdentity: func(lookup func(string) (string, bool), moreFollow bool) (azcore.TokenCredential, error) {
		o := &azidentity.ManagedIdentityCredentialOptions{}
		if id, ok := lookup("AZURE_CLIENT_ID"); ok && id != "" {
			o.ID = azidentity.ClientID(id)
		}
		c, err := azidentity.NewManagedIdentityCredential(o)
		if err != nil || !moreFollow {
			return c, err
		}
		return &probedCredential{inner: c, probe: ManagedIdentityProbe}, nil
	},
	CredAzureCLI: func(func(string) (string, bool), bool) (azcore.TokenCredential, error) {
		return azidentity.NewAzureCLICredential(nil)
	},
	CredAzureDeveloperCLI: func(func(string) (string, bool), bool) (azcore.TokenCredential, error) {
		return azidentity.NewAzureDeveloperCLICredential(nil)
	},
}

// probedCredential bounds the first GetToken of a credential (the managed
// identity's endpoint may not answer at all off Azure).
type probedCredential struct {
	inner azcore.TokenCredential
	probe time.Duration
	ok    bool
	mu    sync.Mutex
}

func (p *probedCredential) GetToken(ctx context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	p.mu.Lock()
	ok := p.ok
	p.mu.Unlock()
	if ok {
		return p.inner.GetToken(ctx, o)
	}
	pctx, cancel := context.WithTimeout(ctx, p.probe)
	defer cancel()
	tok, err := p.inner.GetToken(pctx, o)
	if err == nil {
		p.mu.Lock()
		p.ok = true
		p.mu.Unlock()
	} else if pctx.Err() != nil && ctx.Err() == nil {
		err = fmt.Errorf("no answer within %s (not on an Azure host with a managed identity?)", p.probe)
	}
	return tok, err
}

// CredentialError reports that no credential of a chain got a token. It
// names every credential tried and why it failed, secrets removed.
type CredentialError struct {
	Attempts []string // "Name: reason"
}

func (e *CredentialError) Error() string {
	return "aztables: Microsoft Entra ID authentication failed; credentials tried: " + strings.Join(e.Attempts, "; ")
}

// chainCredential tries its credentials in order and keeps using the first
// that gets a token.
type chainCredential struct {
	names   []string
	creds   []azcore.TokenCredential // nil where the constructor failed
	errs    []error                  // the constructors' errors
	secrets []string

	mu     sync.Mutex
	chosen int // index of the credential in use, -1 before the first token
}

// newDefaultChain builds the default credential chain from the
// environment.
func newDefaultChain(lookup func(string) (string, bool)) (*chainCredential, error) {
	names, err := SelectCredentials(lookup)
	if err != nil {
		return nil, err
	}
	c := &chainCredential{names: names, chosen: -1}
	for _, n := range secretEnv {
		if v, ok := lookup(n); ok && v != "" {
			c.secrets = append(c.secrets, v, url.QueryEscape(v))
		}
	}
	for i, n := range names {
		cred, err := credentialFactories[n](lookup, i < len(names)-1)
		if err != nil {
			cred = nil // a constructor's typed nil is not a credential
		}
		c.creds = append(c.creds, cred)
		c.errs = append(c.errs, err)
	}
	return c, nil
}

func (c *chainCredential) scrub(s string) string {
	for _, sec := range c.secrets {
		if sec != "" {
			s = strings.ReplaceAll(s, sec, "***")
		}
	}
	return s
}

// reason is the first line of a credential's error, scrubbed.
func (c *chainCredential) reason(err error) string {
	msg := strings.TrimSpace(err.Error())
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		rest := strings.Join(strings.Fields(msg[i:]), " ")
		msg = msg[:i] + " " + rest
	}
	if len(msg) > 400 {
		msg = msg[:400] + "..."
	}
	return c.scrub(msg)
}

// GetToken implements azcore.TokenCredential.
func (c *chainCredential) GetToken(ctx context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	c.mu.Lock()
	chosen := c.chosen
	c.mu.Unlock()
	if chosen >= 0 {
		tok, err := c.creds[chosen].GetToken(ctx, o)
		if err != nil {
			return tok, &CredentialError{Attempts: []string{c.names[chosen] + ": " + c.reason(err)}}
		}
		return tok, nil
	}
	ce := &CredentialError{}
	for i, cred := range c.creds {
		if cred == nil {
			ce.Attempts = append(ce.Attempts, c.names[i]+": not configured: "+c.reason(c.errs[i]))
			continue
		}
		tok, err := cred.GetToken(ctx, o)
		if err == nil {
			c.mu.Lock()
			c.chosen = i
			c.mu.Unlock()
			return tok, nil
		}
		ce.Attempts = append(ce.Attempts, c.names[i]+": "+c.reason(err))
		if ctx.Err() != nil {
			break
		}
	}
	return azcore.AccessToken{}, ce
}

// Chosen returns the name of the credential in use, "" before the first
// token.
func (c *chainCredential) Chosen() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chosen < 0 {
		return ""
	}
	return c.names[c.chosen]
}

// endpointSpec is a store spec given as an endpoint URL.
type endpointSpec struct {
	endpoint string // without query
	sas      string // the query when it is a SAS, else ""
}

// parseEndpointSpec recognises an endpoint-only spec: an http(s) URL,
// possibly carrying a SAS query. ok is false for a connection string.
func parseEndpointSpec(s string) (*endpointSpec, bool, error) {
	lower := strings.ToLower(strings.TrimSpace(s))
	if !strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "http://") {
		return nil, false, nil
	}
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" {
		return nil, true, fmt.Errorf("%w: aztables: the endpoint is not a URL", storage.ErrInvalid)
	}
	ep := &endpointSpec{sas: u.RawQuery}
	u.RawQuery, u.Fragment = "", ""
	ep.endpoint = strings.TrimRight(u.String(), "/")
	if ep.sas != "" {
		q, err := url.ParseQuery(ep.sas)
		if err != nil || q.Get("sig") == "" {
			return nil, true, errors.New("aztables: the endpoint's query is not a shared access signature (sv=...&sig=...); give the endpoint alone to use Microsoft Entra ID")
		}
	}
	return ep, true, nil
}

// lookupEnv is os.LookupEnv (tests replace the environment).
var lookupEnv = os.LookupEnv
