package aztables

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/sqlgw/sqlgw/storage"
)

// Unit tests of the credential chain: no network (fake credentials and a
// fake transport).

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestSelectCredentials(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want []string
		err  string
	}{
		{nil, []string{CredEnvironment, CredWorkloadIdentity, CredManagedIdentity, CredAzureCLI, CredAzureDeveloperCLI}, ""},
		{map[string]string{"AZURE_TOKEN_CREDENTIALS": ""}, defaultChain, ""},
		{map[string]string{"AZURE_TOKEN_CREDENTIALS": "prod"}, []string{CredEnvironment, CredWorkloadIdentity, CredManagedIdentity}, ""},
		{map[string]string{"AZURE_TOKEN_CREDENTIALS": "dev"}, []string{CredAzureCLI, CredAzureDeveloperCLI}, ""},
		{map[string]string{"AZURE_TOKEN_CREDENTIALS": "azureclicredential"}, []string{CredAzureCLI}, ""},
		{map[string]string{"AZURE_TOKEN_CREDENTIALS": "ManagedIdentityCredential"}, []string{CredManagedIdentity}, ""},
		{map[string]string{"AZURE_TOKEN_CREDENTIALS": "bogus"}, nil, "AZURE_TOKEN_CREDENTIALS \"bogus\""},
	} {
		got, err := SelectCredentials(envOf(tc.env))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, storage.ErrInvalid) {
				t.Errorf("%v: error %v, want one containing %q", tc.env, err, tc.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("%v: %v, %v; want %v", tc.env, got, err, tc.want)
		}
	}
}

// fakeCred returns a token or an error, counting calls.
type fakeCred struct {
	token string
	err   error
	calls int
}

func (f *fakeCred) GetToken(ctx context.Context, o policy.TokenRequestOptions) (azcore.AccessToken, error) {
	f.calls++
	if f.err != nil {
		return azcore.AccessToken{}, f.err
	}
	return azcore.AccessToken{Token: f.token, ExpiresOn: time.Now().Add(time.Hour)}, nil
}

// withFactories replaces the chain's constructors for one test.
func withFactories(t *testing.T, fakes map[string]*fakeCred, unconfigured ...string) {
	old := credentialFactories
	credentialFactories = map[string]credentialFactory{}
	for _, n := range defaultChain {
		n := n
		credentialFactories[n] = func(func(string) (string, bool), bool) (azcore.TokenCredential, error) {
			if slices.Contains(unconfigured, n) {
				return nil, errors.New("missing environment variable AZURE_TENANT_ID")
			}
			if f, ok := fakes[n]; ok {
				return f, nil
			}
			return &fakeCred{err: errors.New(n + " unavailable")}, nil
		}
	}
	t.Cleanup(func() { credentialFactories = old })
}

func TestChainCredential(t *testing.T) {
	const secret = "s3cr3t-Value/+="
	env := envOf(map[string]string{"AZURE_CLIENT_SECRET": secret})
	ctx := context.Background()

	// The first credential that gets a token is used from then on.
	wi := &fakeCred{err: errors.New("token exchange failed: invalid client secret " + secret)}
	mi := &fakeCred{token: "tok-mi"}
	cli := &fakeCred{token: "tok-cli"}
	withFactories(t, map[string]*fakeCred{CredWorkloadIdentity: wi, CredManagedIdentity: mi, CredAzureCLI: cli}, CredEnvironment)
	chain, err := newDefaultChain(env)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		tok, err := chain.GetToken(ctx, policy.TokenRequestOptions{Scopes: []string{"https://storage.azure.com/.default"}})
		if err != nil || tok.Token != "tok-mi" {
			t.Fatalf("GetToken: %v, %v", tok.Token, err)
		}
	}
	if chain.Chosen() != CredManagedIdentity || wi.calls != 1 || mi.calls != 2 || cli.calls != 0 {
		t.Fatalf("chosen %q, calls wi=%d mi=%d cli=%d", chain.Chosen(), wi.calls, mi.calls, cli.calls)
	}

	// None gets a token: the error names each credential in order, and
	// never the secret.
	withFactories(t, map[string]*fakeCred{CredWorkloadIdentity: {err: errors.New("bad secret " + secret + "\nsecond line")}}, CredEnvironment)
	chain, err = newDefaultChain(env)
	if err != nil {
		t.Fatal(err)
	}
	_, err = chain.GetToken(ctx, policy.TokenRequestOptions{})
	var ce *CredentialError
	if !errors.As(err, &ce) || len(ce.Attempts) != 5 {
		t.Fatalf("error %v, want a CredentialError with 5 attempts", err)
	}
	for i, n := range defaultChain {
		if !strings.HasPrefix(ce.Attempts[i], n+": ") {
			t.Errorf("attempt %d is %q, want %s first", i, ce.Attempts[i], n)
		}
	}
	if strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "bad secret *** second line") {
		t.Fatalf("error holds the secret or lost the reason: %v", err)
	}
	if !strings.Contains(ce.Attempts[0], "not configured") {
		t.Fatalf("unconfigured credential: %q", ce.Attempts[0])
	}

	// AZURE_TOKEN_CREDENTIALS narrows the chain.
	withFactories(t, map[string]*fakeCred{CredAzureCLI: {token: "tok-cli"}})
	chain, err = newDefaultChain(envOf(map[string]string{"AZURE_TOKEN_CREDENTIALS": "dev"}))
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := chain.GetToken(ctx, policy.TokenRequestOptions{}); err != nil || tok.Token != "tok-cli" || !slices.Equal(chain.names, []string{CredAzureCLI, CredAzureDeveloperCLI}) {
		t.Fatalf("dev chain: %v %v %v", chain.names, tok.Token, err)
	}
}

// recordingTransport answers every request with an empty table list and
// keeps the requests.
type recordingTransport struct{ reqs []*http.Request }

func (r *recordingTransport) Do(req *http.Request) (*http.Response, error) {
	r.reqs = append(r.reqs, req)
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(`{"value":[]}`)), Request: req}, nil
}

func TestOpenEndpointSpec(t *testing.T) {
	ctx := context.Background()
	// An endpoint alone: a bearer token from the credential.
	tr := &recordingTransport{}
	s, err := Open(ctx, "https://myaccount.table.core.windows.net/", &Options{Credential: &fakeCred{token: "tok-1"}, HTTPClient: tr, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListTables(ctx); err != nil {
		t.Fatal(err)
	}
	if len(tr.reqs) != 1 || tr.reqs[0].Header.Get("Authorization") != "Bearer tok-1" || tr.reqs[0].URL.Host != "myaccount.table.core.windows.net" {
		t.Fatalf("requests %v (Authorization %q)", tr.reqs, tr.reqs[0].Header.Get("Authorization"))
	}
	if s.Capabilities().Unsorted {
		t.Fatal("Azure Storage endpoint taken for Cosmos")
	}

	// The Cosmos DB Table API endpoint form: unsorted results, its limits.
	tr = &recordingTransport{}
	s, err = Open(ctx, "https://myaccount.table.cosmos.azure.com:443/", &Options{Credential: &fakeCred{token: "tok-2"}, HTTPClient: tr, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Capabilities().Unsorted || s.Capabilities().Limits != storage.CosmosLimits {
		t.Fatalf("Cosmos endpoint: capabilities %+v", s.Capabilities())
	}
	if _, err := s.ListTables(ctx); err != nil || tr.reqs[0].Header.Get("Authorization") != "Bearer tok-2" {
		t.Fatalf("Cosmos endpoint: %v", err)
	}

	// A credential that fails: the store's error names it.
	tr = &recordingTransport{}
	withFactories(t, nil, CredEnvironment)
	old := lookupEnv
	lookupEnv = envOf(map[string]string{"AZURE_TOKEN_CREDENTIALS": "prod", "AZURE_CLIENT_SECRET": "hunter2"})
	t.Cleanup(func() { lookupEnv = old })
	s, err = Open(ctx, "https://myaccount.table.core.windows.net", &Options{HTTPClient: tr, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.ListTables(ctx)
	if err == nil || !strings.Contains(err.Error(), CredManagedIdentity+": "+CredManagedIdentity+" unavailable") ||
		!strings.Contains(err.Error(), CredEnvironment+": not configured") || strings.Contains(err.Error(), "hunter2") || len(tr.reqs) != 0 {
		t.Fatalf("failing chain: %v (%d requests sent)", err, len(tr.reqs))
	}

	// A SAS in the URL is used as such; a query that is not one is refused.
	tr = &recordingTransport{}
	s, err = Open(ctx, "https://myaccount.table.core.windows.net?sv=2022-11-02&ss=t&sig=abc%2Bdef", &Options{HTTPClient: tr, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListTables(ctx); err != nil || tr.reqs[0].Header.Get("Authorization") != "" || !strings.Contains(tr.reqs[0].URL.RawQuery, "sig=abc") {
		t.Fatalf("SAS endpoint: %v %v", err, tr.reqs)
	}
	if _, err := Open(ctx, "https://myaccount.table.core.windows.net?foo=bar", nil); err == nil || !strings.Contains(err.Error(), "shared access signature") {
		t.Fatalf("endpoint with a query that is no SAS: %v", err)
	}
}

// TestChainRealConstructors: the SDK's own constructors, with the
// environment credential half configured (its constructor fails) and the
// chain narrowed to it: a CredentialError naming it, no panic, no request.
func TestChainRealConstructors(t *testing.T) {
	t.Setenv("AZURE_TENANT_ID", "00000000-0000-0000-0000-000000000000")
	t.Setenv("AZURE_CLIENT_ID", "")
	t.Setenv("AZURE_CLIENT_SECRET", "topsecret123")
	t.Setenv("AZURE_CLIENT_CERTIFICATE_PATH", "")
	t.Setenv("AZURE_USERNAME", "")
	chain, err := newDefaultChain(envOf(map[string]string{"AZURE_TOKEN_CREDENTIALS": CredEnvironment, "AZURE_CLIENT_SECRET": "topsecret123"}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = chain.GetToken(context.Background(), policy.TokenRequestOptions{Scopes: []string{"https://storage.azure.com/.default"}})
	var ce *CredentialError
	if !errors.As(err, &ce) || len(ce.Attempts) != 1 || !strings.HasPrefix(ce.Attempts[0], CredEnvironment+": not configured") || strings.Contains(err.Error(), "topsecret123") {
		t.Fatalf("error %v", err)
	}
}
