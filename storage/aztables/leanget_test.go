package aztables

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// recorder is a transport that keeps a copy of every request it sends.
type recorder struct {
	mu   sync.Mutex
	reqs []*http.Request
}

func (r *recorder) Do(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req.Clone(context.Background()))
	r.mu.Unlock()
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recorder) take() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	reqs := r.reqs
	r.reqs = nil
	return reqs
}

// TestLeanGetRequest sends Get Entity through the lean path (leanget.go)
// and through the SDK's pipeline, for keys with every character class the
// URL escapes or the SDK rewrites (quotes, %, +, spaces, non-ASCII, the
// empty PartitionKey), with and without $select, for present and absent
// entities, an absent table and a table spelled in another case, with a
// Shared Key and with a SAS. Both paths must send the same request
// (method, URL, headers; the SharedKeyLite signature recomputed for the
// SDK request's date must be the SDK's) and return the same entity or the
// same error; so must the lean Get on its own connections (leanconn.go,
// whose request bytes TestDirectGetRequestBytes compares).
func TestLeanGetRequest(t *testing.T) {
	cs := azurite.Shared(t)
	ctx := context.Background()
	type pair struct {
		name      string
		lean, sdk *Store
		lr, sr    *recorder
		direct    *Store // the lean Get on its own connections (leanconn.go)
	}
	openDirect := func(t *testing.T, spec string) *Store {
		s, err := Open(ctx, spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if s.lean == nil || s.lean.direct == nil {
			t.Fatal("a store on an http endpoint without a proxy does not take the direct Get")
		}
		return s
	}
	open := func(t *testing.T, spec string) (*Store, *recorder) {
		r := &recorder{}
		s, err := Open(ctx, spec, &Options{HTTPClient: r})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s, r
	}
	var pairs []pair
	{
		l, lr := open(t, cs)
		s, sr := open(t, cs)
		s.lean = nil
		if l.lean == nil || l.lean.key == nil {
			t.Fatal("a Shared Key store does not take the lean Get")
		}
		pairs = append(pairs, pair{"sharedkey", l, s, lr, sr, openDirect(t, cs)})
	}
	if strings.Contains(cs, azurite.AccountKey) {
		query, _ := azurite.AccountSAS(t)
		ep := cs[strings.Index(cs, "TableEndpoint=")+len("TableEndpoint="):]
		ep = strings.TrimSuffix(ep, ";")
		spec := "TableEndpoint=" + ep + ";SharedAccessSignature=" + query
		l, lr := open(t, spec)
		s, sr := open(t, spec)
		s.lean = nil
		if l.lean == nil || l.lean.sas == nil {
			t.Fatal("a SAS store does not take the lean Get")
		}
		pairs = append(pairs, pair{"sas", l, s, lr, sr, openDirect(t, spec)})
	}

	w, _ := open(t, cs) // not one of the pairs: they learn the table's spelling alike
	table := fmt.Sprintf("lean%d", time.Now().UnixNano()%1e9)
	if err := w.CreateTable(ctx, table); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.DeleteTable(context.Background(), table) })
	keys := []string{"plain", "it's", "it''s'", "sp ace", "100%", "a+b", "(x)", "x=y&z;w", "ü ñ 😀", "a.b", "..", "$select", "@:,!*"}
	for _, pk := range append([]string{""}, keys...) {
		for _, rk := range keys {
			e := &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: storage.Properties{
				"N": storage.Int32(7), "S": storage.String("v " + pk + rk), "D": storage.Double(3), "B": storage.Binary([]byte{0, 1}),
			}}
			if _, err := w.Upsert(ctx, table, e, storage.Replace); err != nil {
				t.Fatalf("Upsert %q %q: %v", pk, rk, err)
			}
		}
	}

	type call struct {
		table, pk, rk string
		sel           []string
	}
	var calls []call
	for _, pk := range append([]string{""}, keys...) {
		for _, rk := range keys {
			calls = append(calls, call{table, pk, rk, nil})
		}
		calls = append(calls, call{table, pk, "plain", []string{"S", "D", "Missing"}}, call{table, pk, "absent'", nil})
	}
	calls = append(calls, call{"nosuchtable", "p", "r", nil}, call{strings.ToUpper(table), "plain", "it's", []string{"N"}})

	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			for _, c := range calls {
				var opts *storage.GetOptions
				if c.sel != nil {
					opts = &storage.GetOptions{Select: c.sel}
				}
				p.lr.take()
				p.sr.take()
				le, lerr := p.lean.Get(ctx, c.table, c.pk, c.rk, opts)
				se, serr := p.sdk.Get(ctx, c.table, c.pk, c.rk, opts)
				what := fmt.Sprintf("Get(%s, %q, %q, %v)", c.table, c.pk, c.rk, c.sel)
				if !reflect.DeepEqual(le, se) {
					t.Errorf("%s: lean %+v, SDK %+v", what, le, se)
				}
				if (lerr == nil) != (serr == nil) || lerr != nil && lerr.Error() != serr.Error() {
					t.Errorf("%s: lean error %v, SDK error %v", what, lerr, serr)
				}
				de, derr := p.direct.Get(ctx, c.table, c.pk, c.rk, opts)
				if !reflect.DeepEqual(de, se) {
					t.Errorf("%s: direct %+v, SDK %+v", what, de, se)
				}
				if (derr == nil) != (serr == nil) || derr != nil && derr.Error() != serr.Error() {
					t.Errorf("%s: direct error %v, SDK error %v", what, derr, serr)
				}
				var lse, sse *ServiceError
				if errors.As(lerr, &lse) != errors.As(serr, &sse) || lse != nil && (lse.Status != sse.Status || lse.Code != sse.Code || lse.Sentinel != sse.Sentinel) {
					t.Errorf("%s: lean %#v, SDK %#v", what, lse, sse)
				}
				lreqs, sreqs := p.lr.take(), p.sr.take()
				if len(lreqs) != len(sreqs) || len(lreqs) == 0 {
					t.Fatalf("%s: lean sent %d requests, the SDK %d", what, len(lreqs), len(sreqs))
				}
				for i := range lreqs {
					compareRequests(t, what, p.lean.lean, lreqs[i], sreqs[i])
				}
			}
			if p.direct.lean.direct.idleConns() == 0 || p.direct.lean.direct.off.Load() {
				t.Fatal("the direct Gets kept no connection: they did not take the direct path")
			}
		})
	}
}

// compareRequests checks that the lean Get's request l is the SDK's s; a
// request that is not a Get Entity (the table list the store reads after
// a TableNotFound) must simply be the same.
func compareRequests(t *testing.T, what string, lean *leanGet, l, s *http.Request) {
	t.Helper()
	if l.Method != s.Method || l.URL.String() != s.URL.String() || l.URL.RequestURI() != s.URL.RequestURI() ||
		l.Host != s.Host || l.Proto != s.Proto || l.ContentLength != s.ContentLength {
		t.Errorf("%s: lean %s %s, SDK %s %s", what, l.Method, l.URL, s.Method, s.URL)
		return
	}
	strip := func(h http.Header) http.Header {
		h = h.Clone()
		h.Del("X-Ms-Date")
		h.Del("Authorization")
		return h
	}
	if !reflect.DeepEqual(strip(l.Header), strip(s.Header)) {
		t.Errorf("%s: lean headers %v, SDK headers %v", what, l.Header, s.Header)
	}
	if (l.Header.Get("Authorization") == "") != (s.Header.Get("Authorization") == "") {
		t.Errorf("%s: lean Authorization %q, SDK %q", what, l.Header.Get("Authorization"), s.Header.Get("Authorization"))
	}
	if s.Header.Get("Authorization") == "" || !strings.Contains(s.URL.Path, "(PartitionKey=") {
		return
	}
	// The signature, recomputed at the SDK request's date.
	date, err := http.ParseTime(s.Header.Get("X-Ms-Date"))
	if err != nil {
		t.Fatal(err)
	}
	table := s.URL.Path[strings.LastIndexByte(s.URL.Path, '/')+1 : strings.IndexByte(s.URL.Path, '(')]
	pk, rk := keysOf(t, s.URL.Path)
	sel := s.URL.Query().Get("$select")
	again, err := lean.request(context.Background(), table, pk, rk, sel, date)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again.Header, s.Header) || again.URL.String() != s.URL.String() {
		t.Errorf("%s: lean request at the SDK's date\n%v %v\nSDK\n%v %v", what, again.URL, again.Header, s.URL, s.Header)
	}
}

// keysOf reads the keys back from an entity path's
// (PartitionKey='..',RowKey='..') with ” for '.
func keysOf(t *testing.T, path string) (pk, rk string) {
	args := path[strings.IndexByte(path, '(')+1 : len(path)-1]
	cut := func(s string) (string, string) {
		var sb strings.Builder
		for i := 1; i < len(s); i++ {
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					sb.WriteByte('\'')
					i++
					continue
				}
				return sb.String(), s[i+1:]
			}
			sb.WriteByte(s[i])
		}
		t.Fatalf("cannot parse %s", path)
		return "", ""
	}
	pk, rest := cut(strings.TrimPrefix(args, "PartitionKey="))
	rk, _ = cut(strings.TrimPrefix(rest, ",RowKey="))
	return pk, rk
}

// closeBody records whether a response body was closed.
type closeBody struct {
	*strings.Reader
	closed bool
}

func (c *closeBody) Close() error { c.closed = true; return nil }

// statusTransport answers 404 ResourceNotFound, remembering the last body.
type statusTransport struct{ last *closeBody }

func (s *statusTransport) Do(req *http.Request) (*http.Response, error) {
	h := http.Header{}
	h.Set("x-ms-error-code", "ResourceNotFound")
	s.last = &closeBody{Reader: strings.NewReader(`{"odata.error":{"code":"ResourceNotFound","message":{"lang":"en-US","value":"The specified resource does not exist.\nRequestId:x"}}}`)}
	return &http.Response{StatusCode: http.StatusNotFound, Header: h, Body: s.last, Request: req}, nil
}

// TestLeanGetErrorBody: a lean Get answered with an error status reads
// and closes the response body at once, as the SDK's body-download
// policy does (an error that never reaches mapError, because the
// caller's context ended, must not hold the connection), and the error is
// the SDK's ResponseError with the service's code and message.
func TestLeanGetErrorBody(t *testing.T) {
	tr := &statusTransport{}
	s, err := Open(context.Background(), "UseDevelopmentStorage=true", &Options{HTTPClient: tr})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.lean.get(context.Background(), "tbl", "p", "r", ""); err == nil || !tr.last.closed {
		t.Fatal("the error response's body was left open")
	}
	_, err = s.Get(context.Background(), "tbl", "p", "r", nil)
	var se *ServiceError
	if !errors.As(err, &se) || se.Status != http.StatusNotFound || se.Code != "ResourceNotFound" ||
		!errors.Is(err, storage.ErrNotFound) || se.Message != "The specified resource does not exist." {
		t.Fatalf("Get: %#v", err)
	}
}
