package aztables_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
	"github.com/sqlgw/sqlgw/storage/storagetest"
)

// One Azurite serves every test of this package.
func TestMain(m *testing.M) { os.Exit(azurite.Main(m)) }

// open returns a Store on the shared Azurite, closed when t ends.
func open(t testing.TB, opts *aztables.Options) *aztables.Store {
	t.Helper()
	s, err := aztables.Open(context.Background(), azurite.Shared(t), opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) storage.Store { return open(t, nil) })
}

// TestConformanceShortPages runs the suite through a transport that cuts
// every query response short (down to empty pages) and sets continuation
// headers, as the real service may: the store and its callers must follow
// tokens rather than rely on Azurite answering in one page.
func TestConformanceShortPages(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping: -short (the suite runs a second time here)")
	}
	if os.Getenv(azurite.EnvConnStr) != "" {
		t.Skipf("skipping: the page cutter writes Azurite's continuation format, and %s points elsewhere", azurite.EnvConnStr)
	}
	sp := &shortPages{}
	storagetest.Run(t, func(t *testing.T) storage.Store {
		return open(t, &aztables.Options{HTTPClient: sp})
	})
	t.Logf("%d pages cut short, %d of them empty", sp.short.Load(), sp.empty.Load())
	if sp.short.Load() == 0 || sp.empty.Load() == 0 {
		t.Fatalf("the transport cut %d pages, %d empty: the test did not test paging", sp.short.Load(), sp.empty.Load())
	}
}

// shortPages forwards requests and, for successful queries of entities,
// keeps only a prefix of the page (possibly empty), pointing the
// continuation at the first entity dropped, in Azurite's token format
// (base64 of the key). The cut depends only on the request, so resuming a
// token twice gives the same page (which the suite checks).
type shortPages struct {
	short, empty atomic.Int64
}

func (sp *shortPages) Do(req *http.Request) (*http.Response, error) {
	resp, err := http.DefaultClient.Do(req)
	if err != nil || req.Method != http.MethodGet || resp.StatusCode != http.StatusOK || !strings.HasSuffix(req.URL.Path, "()") ||
		strings.HasSuffix(req.URL.Path, "/Tables()") {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var page struct {
		Value []json.RawMessage `json:"value"`
	}
	unchanged := func() (*http.Response, error) {
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, nil
	}
	if json.Unmarshal(body, &page) != nil || len(page.Value) < 1 {
		return unchanged()
	}
	keysAt := func(i int) (pk, rk string) {
		var k struct{ PartitionKey, RowKey string }
		json.Unmarshal(page.Value[i], &k)
		return k.PartitionKey, k.RowKey
	}
	h := fnv.New64a()
	h.Write([]byte(req.URL.RawQuery))
	k := int(h.Sum64() % uint64(len(page.Value)+1))
	q := req.URL.Query()
	if pk, rk := keysAt(0); k == 0 && q.Get("NextPartitionKey") == base64.StdEncoding.EncodeToString([]byte(pk)) &&
		q.Get("NextRowKey") == base64.StdEncoding.EncodeToString([]byte(rk)) {
		k = 1 // an empty page here would hand back the same token forever
	}
	for k < len(page.Value) {
		if pk, rk := keysAt(k); pk != "" || rk != "" {
			break
		}
		k++ // Azurite's token for ("", "") is empty, which ends a query
	}
	if k >= len(page.Value) {
		return unchanged()
	}
	var next struct{ PartitionKey, RowKey string }
	json.Unmarshal(page.Value[k], &next)
	sp.short.Add(1)
	if k == 0 {
		sp.empty.Add(1)
	}
	var m map[string]json.RawMessage
	json.Unmarshal(body, &m)
	kept, _ := json.Marshal(page.Value[:k])
	m["value"] = kept
	body, _ = json.Marshal(m)
	resp.Header.Set("x-ms-continuation-NextPartitionKey", base64.StdEncoding.EncodeToString([]byte(next.PartitionKey)))
	resp.Header.Set("x-ms-continuation-NextRowKey", base64.StdEncoding.EncodeToString([]byte(next.RowKey)))
	resp.Header.Del("Content-Length")
	resp.ContentLength = int64(len(body))
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, nil
}
