package aztables_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

var tableSeq atomic.Int64

// newTable creates a fresh table on s, deleted when t ends.
func newTable(t testing.TB, s *aztables.Store) string {
	t.Helper()
	name := fmt.Sprintf("azt%d%d", time.Now().UnixNano()%1e9, tableSeq.Add(1))
	if err := s.CreateTable(context.Background(), name); err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	t.Cleanup(func() { s.DeleteTable(context.Background(), name) })
	return name
}

func queryAll(t testing.TB, s *aztables.Store, table string, q storage.Query) ([]*storage.Entity, int) {
	t.Helper()
	var all []*storage.Entity
	pages := 0
	for {
		p, err := s.Query(context.Background(), table, &q)
		if err != nil {
			t.Fatalf("Query(%s): %v", storage.FormatOData(q.Filter), err)
		}
		pages++
		all = append(all, p.Entities...)
		if p.Continuation == "" {
			return all, pages
		}
		q.Continuation = p.Continuation
	}
}

func rowKeys(es []*storage.Entity) string {
	var ks []string
	for _, e := range es {
		ks = append(ks, e.RowKey)
	}
	return strings.Join(ks, ",")
}

// TestValues checks the values the SDK or the service are known to get
// wrong: quotes in strings (the SDK's EDMEntity doubles them), whole
// Doubles (sent as 3 they come back Int32), Int64 beyond 2^53, DateTime to
// 100 ns, Binary, Guid, and the Double specials.
func TestValues(t *testing.T) {
	s := open(t, nil)
	table := newTable(t, s)
	ctx := context.Background()
	ts := time.Date(2024, 2, 29, 23, 59, 58, 123456700, time.UTC)
	props := storage.Properties{
		"Quote":   storage.String(`it's "quoted" ''twice'' \ and é 😀`),
		"Keyword": storage.String(`x' or PartitionKey ne '`),
		"Whole":   storage.Double(3.0),
		"Zero":    storage.Double(0),
		// Negative zero is left out: Azurite (JavaScript) returns -0 as 0.
		"One":      storage.Double(1),
		"Big":      storage.Double(1e300),
		"Tiny":     storage.Double(5e-324),
		"Half":     storage.Double(2.5),
		"NaN":      storage.Double(math.NaN()),
		"PosInf":   storage.Double(math.Inf(1)),
		"NegInf":   storage.Double(math.Inf(-1)),
		"Int64":    storage.Int64(1<<53 + 1),
		"MaxInt64": storage.Int64(math.MaxInt64),
		"MinInt64": storage.Int64(math.MinInt64),
		"Small64":  storage.Int64(7),
		"Int32":    storage.Int32(-2147483648),
		"True":     storage.Bool(true),
		"False":    storage.Bool(false),
		"When":     storage.DateTime(ts),
		"Early":    storage.DateTime(time.Date(1601, 1, 1, 0, 0, 0, 100, time.UTC)),
		"Bin":      storage.Binary([]byte{0, 1, 2, 0xff, '\'', '"'}),
		"Empty":    storage.Binary(nil),
		"G":        storage.GUID([16]byte{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
		"EmptyStr": storage.String(""),
	}
	check := func(what string, got *storage.Entity) {
		t.Helper()
		for name, want := range props {
			g, ok := got.Properties[name]
			if !ok {
				t.Errorf("%s: %s missing", what, name)
				continue
			}
			if !g.Equal(want) {
				t.Errorf("%s: %s = %#v (%v), want %#v (%v)", what, name, g, g.Type(), want, want.Type())
			}
		}
		if len(got.Properties) != len(props) {
			t.Errorf("%s: %d properties, want %d", what, len(got.Properties), len(props))
		}
	}
	if _, err := s.Insert(ctx, table, &storage.Entity{PartitionKey: "p'1", RowKey: "r'1", Properties: props}); err != nil {
		t.Fatalf("Insert: %v", err)
	}
	got, err := s.Get(ctx, table, "p'1", "r'1", nil)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	check("Get", got)
	if got.ETag == "" || time.Since(got.Timestamp) > time.Minute {
		t.Errorf("Get: ETag %q Timestamp %v", got.ETag, got.Timestamp)
	}
	// Through a batch, an upsert and a query too.
	ops := []storage.Operation{{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "p'1", RowKey: "r'2", Properties: props}}}
	if _, err := s.Batch(ctx, table, ops); err != nil {
		t.Fatalf("Batch: %v", err)
	}
	if _, err := s.Upsert(ctx, table, &storage.Entity{PartitionKey: "p'1", RowKey: "r'3", Properties: props}, storage.Replace); err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	all, _ := queryAll(t, s, table, storage.Query{})
	if len(all) != 3 {
		t.Fatalf("query returned %d entities, want 3", len(all))
	}
	for _, e := range all {
		check("Query "+e.RowKey, e)
	}
}

// TestFilterInjection checks that string literals are data: a value that
// looks like OData syntax matches only itself, in keys and properties.
func TestFilterInjection(t *testing.T) {
	s := open(t, nil)
	table := newTable(t, s)
	ctx := context.Background()
	evil := `x' or PartitionKey ne '`
	for i, v := range []string{evil, "x", "other", `'`, `''`} {
		e := &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprint("r", i), Properties: storage.Properties{"S": storage.String(v)}}
		if _, err := s.Insert(ctx, table, e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Insert(ctx, table, &storage.Entity{PartitionKey: evil, RowKey: evil}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f    storage.Expr
		want string
	}{
		{storage.Eq("S", storage.String(evil)), "r0"},
		{storage.Eq("S", storage.String(`'`)), "r3"},
		{storage.Eq("S", storage.String(`''`)), "r4"},
		{storage.Eq(storage.PropPartitionKey, storage.String(evil)), evil},
		{storage.And{storage.Eq(storage.PropRowKey, storage.String(evil)), storage.Eq(storage.PropPartitionKey, storage.String(evil))}, evil},
	} {
		got, _ := queryAll(t, s, table, storage.Query{Filter: tc.f})
		if rowKeys(got) != tc.want {
			t.Errorf("filter %s matched %q, want %q", storage.FormatOData(tc.f), rowKeys(got), tc.want)
		}
	}
	// The same keys through the entity URL.
	if _, err := s.Get(ctx, table, evil, evil, nil); err != nil {
		t.Fatalf("Get of the quoted key: %v", err)
	}
	if err := s.Delete(ctx, table, evil, evil, ""); err != nil {
		t.Fatalf("Delete of the quoted key: %v", err)
	}
}

// TestDoubleLiterals compares Doubles in filters, including whole values,
// exponents and negative zero, against storage.Eval.
func TestDoubleLiterals(t *testing.T) {
	s := open(t, nil)
	table := newTable(t, s)
	ctx := context.Background()
	vals := []float64{-1e21, -2.5, math.Copysign(0, -1), 0, 1e-7, 1, 3, 3.5, 1e21, 1e300}
	var ents []*storage.Entity
	for i, v := range vals {
		e := &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprintf("r%02d", i), Properties: storage.Properties{"D": storage.Double(v)}}
		ents = append(ents, e)
		if _, err := s.Insert(ctx, table, e); err != nil {
			t.Fatal(err)
		}
	}
	for _, lit := range vals {
		for _, op := range []func(string, storage.Value) storage.Expr{storage.Eq, storage.Gt, storage.Le} {
			f := op("D", storage.Double(lit))
			var want []*storage.Entity
			for _, e := range ents {
				if storage.Eval(f, e) {
					want = append(want, e)
				}
			}
			got, _ := queryAll(t, s, table, storage.Query{Filter: f})
			if rowKeys(got) != rowKeys(want) {
				t.Errorf("%s: got %q, want %q", storage.FormatOData(f), rowKeys(got), rowKeys(want))
			}
		}
	}
}

// TestLongFilter sends filters over the service's 15 comparisons: the
// store sends a weaker filter and evaluates the whole one itself, also
// when the projection leaves out the filtered properties.
func TestLongFilter(t *testing.T) {
	s := open(t, nil)
	table := newTable(t, s)
	ctx := context.Background()
	var ents []*storage.Entity
	var ops []storage.Operation
	for i := 0; i < 40; i++ {
		e := &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprintf("r%02d", i), Properties: storage.Properties{
			"N": storage.Int32(int32(i)), "M": storage.Int32(int32(i % 7)), "S": storage.String(fmt.Sprint("s", i%3)),
		}}
		ents = append(ents, e)
		ops = append(ops, storage.Operation{Kind: storage.OpInsert, Entity: e})
	}
	if _, err := s.Batch(ctx, table, ops); err != nil {
		t.Fatal(err)
	}
	var or storage.Or
	for i := 0; i < 20; i++ {
		or = append(or, storage.Eq("N", storage.Int32(int32(2*i))))
	}
	var and storage.And
	for i := 0; i < 17; i++ {
		and = append(and, storage.Ne("N", storage.Int32(int32(3*i))))
	}
	filters := []storage.Expr{
		or,  // 20 comparisons, nothing can be sent
		and, // 17 conjuncts: 15 sent
		storage.And{storage.Eq("S", storage.String("s1")), or},
		storage.And{or, storage.Ge("N", storage.Int32(10)), &storage.Not{X: storage.Eq("M", storage.Int32(3))}},
	}
	for _, f := range filters {
		if storage.CountComparisons(f) <= storage.MaxFilterComparisons {
			t.Fatalf("filter %s is short", storage.FormatOData(f))
		}
		for _, sel := range [][]string{nil, {"S"}, {}} {
			for _, q := range []storage.Query{
				{Filter: f, Select: sel},
				{Filter: f, Select: sel, Partition: storage.Exactly("p"), Row: &storage.KeyRange{Low: &storage.Bound{Key: "r05"}, High: &storage.Bound{Key: "r30", Exclusive: true}}, Top: 3},
			} {
				var want []*storage.Entity
				for _, e := range ents {
					if storage.Eval(f, e) && q.Row.Contains(e.RowKey) {
						want = append(want, e)
					}
				}
				got, _ := queryAll(t, s, table, q)
				if rowKeys(got) != rowKeys(want) {
					t.Fatalf("%s select %v: got %q, want %q", storage.FormatOData(f), sel, rowKeys(got), rowKeys(want))
				}
				for _, e := range got {
					for name := range e.Properties {
						if sel != nil && !contains(sel, name) {
							t.Fatalf("%s select %v: entity carries %s", storage.FormatOData(f), sel, name)
						}
					}
					if sel == nil && len(e.Properties) != 3 {
						t.Fatalf("select all: entity has %v", e.Properties)
					}
				}
			}
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// TestTopAcrossPages reads with small Tops and resumes from each token
// later, passing the remainder, as the contract's callers do.
func TestTopAcrossPages(t *testing.T) {
	s := open(t, nil)
	table := newTable(t, s)
	ctx := context.Background()
	for p := 0; p < 3; p++ {
		var ops []storage.Operation
		for r := 0; r < 10; r++ {
			ops = append(ops, storage.Operation{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: fmt.Sprint("p", p), RowKey: fmt.Sprint("r", r)}})
		}
		if _, err := s.Batch(ctx, table, ops); err != nil {
			t.Fatal(err)
		}
	}
	// Need 17 entities, 4 per request: pages of 4,4,4,4,1.
	need := 17
	q := storage.Query{Row: &storage.KeyRange{Low: &storage.Bound{Key: "r2"}}}
	var got []*storage.Entity
	pages := 0
	for need > 0 {
		q.Top = min(4, need)
		p, err := s.Query(ctx, table, &q)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(p.Entities) > q.Top {
			t.Fatalf("page of %d entities for top %d", len(p.Entities), q.Top)
		}
		got = append(got, p.Entities...)
		need -= len(p.Entities)
		if p.Continuation == "" {
			break
		}
		for _, c := range p.Continuation {
			if c < 0x21 || c > 0x7e {
				t.Fatalf("token %q is not printable", p.Continuation)
			}
		}
		q.Continuation = p.Continuation
	}
	if len(got) != 17 || got[0].PartitionKey != "p0" || got[0].RowKey != "r2" || got[16].PartitionKey != "p2" || got[16].RowKey != "r2" {
		t.Fatalf("got %d entities from %d pages: first %v last %v", len(got), pages, got[0], got[len(got)-1])
	}
	if pages < 5 {
		t.Fatalf("%d pages, want at least 5", pages)
	}
	// Bad tokens are ErrInvalid.
	for _, tok := range []string{"garbage", "1.", "1.!!!.x", "2.abc.def"} {
		_, err := s.Query(ctx, table, &storage.Query{Continuation: tok})
		if !errors.Is(err, storage.ErrInvalid) {
			t.Errorf("token %q: %v, want ErrInvalid", tok, err)
		}
	}
}

// TestEmptyPartitionKey covers the empty PartitionKey, which the service
// accepts and the SDK's entity URLs refuse.
func TestEmptyPartitionKey(t *testing.T) {
	s := open(t, nil)
	table := newTable(t, s)
	ctx := context.Background()
	e := &storage.Entity{PartitionKey: "", RowKey: "", Properties: storage.Properties{"V": storage.Int32(1), "T": storage.String(`"PartitionKey":"#sqlgw-empty-pk#"`)}}
	if _, err := s.Insert(ctx, table, e); err != nil {
		t.Fatalf("Insert: %v", err)
	}
	got, err := s.Get(ctx, table, "", "", nil)
	if err != nil || !got.Properties["V"].Equal(storage.Int32(1)) || !got.Properties["T"].Equal(e.Properties["T"]) {
		t.Fatalf("Get = %v, %v", got, err)
	}
	e.Properties["V"] = storage.Int32(2)
	if _, err := s.Update(ctx, table, e, storage.Merge, got.ETag); err != nil {
		t.Fatalf("Update: %v", err)
	}
	if _, err := s.Upsert(ctx, table, &storage.Entity{RowKey: "b"}, storage.Replace); err != nil {
		t.Fatalf("Upsert: %v", err)
	}
	ops := []storage.Operation{
		{Kind: storage.OpUpdate, Mode: storage.Replace, Entity: &storage.Entity{RowKey: "", Properties: storage.Properties{"V": storage.Int32(3)}}},
		{Kind: storage.OpDelete, Entity: &storage.Entity{RowKey: "b"}},
		{Kind: storage.OpInsert, Entity: &storage.Entity{RowKey: "c"}},
	}
	if _, err := s.Batch(ctx, table, ops); err != nil {
		t.Fatalf("Batch: %v", err)
	}
	all, _ := queryAll(t, s, table, storage.Query{Partition: storage.Exactly("")})
	if rowKeys(all) != ",c" || !all[0].Properties["V"].Equal(storage.Int32(3)) {
		t.Fatalf("after batch: %q %v", rowKeys(all), all[0].Properties)
	}
	if err := s.Delete(ctx, table, "", "", ""); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := s.Get(ctx, table, "", "", nil); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Get after Delete: %v", err)
	}
}

// TestBatchErrorIndex checks that the failing operation is named.
func TestBatchErrorIndex(t *testing.T) {
	s := open(t, nil)
	table := newTable(t, s)
	ctx := context.Background()
	if _, err := s.Insert(ctx, table, &storage.Entity{PartitionKey: "p", RowKey: "r2"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ops   []storage.Operation
		index int
		want  error
	}{
		{[]storage.Operation{
			{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: "r0"}},
			{Kind: storage.OpUpsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: "r1"}},
			{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: "r2"}},
		}, 2, storage.ErrAlreadyExists},
		{[]storage.Operation{
			{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: "r0"}},
			{Kind: storage.OpUpdate, Entity: &storage.Entity{PartitionKey: "p", RowKey: "missing"}},
		}, 1, storage.ErrNotFound},
		{[]storage.Operation{
			{Kind: storage.OpDelete, Entity: &storage.Entity{PartitionKey: "p", RowKey: "r2"}, IfMatch: `W/"datetime'2000-01-01T00%3A00%3A00.0000000Z'"`},
		}, 0, storage.ErrPreconditionFailed},
		{[]storage.Operation{ // Azurite accepts this; the store must not
			{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: "x"}},
			{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "q", RowKey: "x"}},
		}, 1, storage.ErrInvalid},
	} {
		_, err := s.Batch(ctx, table, tc.ops)
		var be *storage.BatchError
		if !errors.As(err, &be) || be.Index != tc.index || !errors.Is(err, tc.want) {
			t.Errorf("Batch: %v, want BatchError{%d, %v}", err, tc.index, tc.want)
		}
	}
	all, _ := queryAll(t, s, table, storage.Query{})
	if rowKeys(all) != "r2" {
		t.Fatalf("failed batches left %q", rowKeys(all))
	}
}

// TestSecretsNotInErrors: a request signed with a wrong key fails, and
// neither the key nor the SAS signature appears in the error.
func TestSecretsNotInErrors(t *testing.T) {
	good := azurite.Shared(t)
	const wrongKey = "d3Jvbmcga2V5IHRoYXQgbXVzdCBuZXZlciBiZSBwcmludGVkIGFueXdoZXJlIQ=="
	bad := strings.Replace(good, azurite.AccountKey, wrongKey, 1)
	if bad == good {
		t.Skip("skipping: the connection string does not use Azurite's key")
	}
	s, err := aztables.Open(context.Background(), bad, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Get(context.Background(), "sometable", "p", "r", nil)
	if err == nil {
		t.Fatal("Get with a wrong key succeeded")
	}
	if strings.Contains(err.Error(), wrongKey) || strings.Contains(fmt.Sprintf("%+v", err), wrongKey) {
		t.Fatalf("error contains the key: %v", err)
	}
	if !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("error %v, want ErrInvalid", err)
	}
	// A SAS connection string with a bad signature.
	ep := good[strings.Index(good, "TableEndpoint=")+len("TableEndpoint="):]
	ep = strings.TrimSuffix(ep, ";")
	const sig = "c2VjcmV0LXNpZ25hdHVyZS12YWx1ZQ%3D%3D"
	s2, err := aztables.Open(context.Background(), "TableEndpoint="+ep+";SharedAccessSignature=sv=2019-02-02&ss=t&srt=sco&sp=rwdlacu&se=2099-01-01T00:00:00Z&sig="+sig, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s2.Get(context.Background(), "sometable", "p", "r", nil)
	if err == nil {
		t.Fatal("Get with a bad SAS succeeded")
	}
	for _, secret := range []string{sig, "c2VjcmV0LXNpZ25hdHVyZS12YWx1ZQ=="} {
		if strings.Contains(err.Error(), secret) {
			t.Fatalf("error contains the signature: %v", err)
		}
	}
	// Open's own errors do not quote the connection string either.
	_, err = aztables.Open(context.Background(), "AccountName=a;AccountKey="+wrongKey+";TableEndpoint=ftp://x", nil)
	if err == nil || strings.Contains(err.Error(), wrongKey) {
		t.Fatalf("Open with a bad endpoint: %v", err)
	}
}

// faultTransport fails the first n requests matching match with status
// (or a connection error when status is 0), then forwards.
type faultTransport struct {
	mu       sync.Mutex
	match    func(*http.Request) bool
	failures int
	status   int
	seen     int // matching requests seen
	delay    time.Duration
	forward  bool // send a failing request on before failing it (a lost response)
}

func (f *faultTransport) Do(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	hit := f.match == nil || f.match(req)
	fail := false
	if hit {
		f.seen++
		fail = f.failures > 0
		if fail {
			f.failures--
		}
	}
	status, delay, forward := f.status, f.delay, f.forward
	f.mu.Unlock()
	if fail && forward {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if fail {
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-req.Context().Done():
				return nil, req.Context().Err()
			}
		}
		if status == 0 {
			return nil, io.ErrUnexpectedEOF
		}
		body := fmt.Sprintf(`{"odata.error":{"code":"%s","message":{"lang":"en-US","value":"injected fault"}}}`, map[int]string{503: "ServerBusy", 500: "OperationTimedOut"}[status])
		return &http.Response{StatusCode: status, Status: http.StatusText(status), Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
	}
	return http.DefaultClient.Do(req)
}

func (f *faultTransport) set(match func(*http.Request) bool, failures, status int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.match, f.failures, f.status, f.seen, f.forward = match, failures, status, 0, false
}

// lose makes the next n matching requests reach the service and then fail
// with status: the caller cannot know whether they were applied.
func (f *faultTransport) lose(match func(*http.Request) bool, n, status int) {
	f.set(match, n, status)
	f.mu.Lock()
	f.forward = true
	f.mu.Unlock()
}

func (f *faultTransport) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.seen
}

func method(m string) func(*http.Request) bool {
	return func(r *http.Request) bool { return r.Method == m }
}

// TestRetry injects 503s, 500s, dropped connections and lost responses:
// idempotent requests are retried until they succeed; an Insert or a Batch
// is retried after a 503 (the service did not execute it) but not after a
// 500 or a lost connection (it may have); conditional writes are retried,
// and report an unknown outcome rather than a false conflict.
func TestRetry(t *testing.T) {
	ft := &faultTransport{}
	var logs atomic.Int64
	s := open(t, &aztables.Options{HTTPClient: ft, RetryDelay: time.Millisecond, MaxRetryDelay: 10 * time.Millisecond,
		Logf: func(string, ...any) { logs.Add(1) }})
	table := newTable(t, s)
	ctx := context.Background()
	if _, err := s.Insert(ctx, table, &storage.Entity{PartitionKey: "p", RowKey: "r"}); err != nil {
		t.Fatal(err)
	}

	ft.set(method("GET"), 3, 503)
	if _, err := s.Get(ctx, table, "p", "r", nil); err != nil || ft.count() != 4 {
		t.Fatalf("Get after 3×503: %v, %d attempts", err, ft.count())
	}
	ft.set(method("GET"), 2, 500)
	if p, err := s.Query(ctx, table, &storage.Query{}); err != nil || len(p.Entities) != 1 || ft.count() != 3 {
		t.Fatalf("Query after 2×500: %v, %d attempts", err, ft.count())
	}
	ft.set(method("PATCH"), 2, 0)
	if _, err := s.Upsert(ctx, table, &storage.Entity{PartitionKey: "p", RowKey: "u"}, storage.Merge); err != nil || ft.count() != 3 {
		t.Fatalf("Upsert after 2 lost connections: %v, %d attempts", err, ft.count())
	}
	ft.set(method("POST"), 2, 503)
	if _, err := s.Insert(ctx, table, &storage.Entity{PartitionKey: "p", RowKey: "i1"}); err != nil || ft.count() != 3 {
		t.Fatalf("Insert after 2×503: %v, %d attempts", err, ft.count())
	}
	ft.set(method("POST"), 1, 500)
	_, err := s.Insert(ctx, table, &storage.Entity{PartitionKey: "p", RowKey: "i2"})
	if !errors.Is(err, storage.ErrUnavailable) || ft.count() != 1 {
		t.Fatalf("Insert after a 500: %v, %d attempts; want ErrUnavailable after 1", err, ft.count())
	}
	ft.set(method("POST"), 1, 0)
	_, err = s.Batch(ctx, table, []storage.Operation{{Kind: storage.OpInsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: "b"}}})
	if !errors.Is(err, storage.ErrUnavailable) || ft.count() != 1 {
		t.Fatalf("Batch after a lost connection: %v, %d attempts; want ErrUnavailable after 1", err, ft.count())
	}
	// Conditional writes are retried after a 500; one that the service did
	// not apply then succeeds.
	ft.set(method("DELETE"), 1, 500)
	if err := s.Delete(ctx, table, "p", "i1", ""); err != nil || ft.count() != 2 {
		t.Fatalf("Delete after a 500: %v, %d attempts", err, ft.count())
	}
	// But if the first attempt was applied and only its response lost, the
	// retry's 404 or 412 is not reported as such: the outcome is unknown.
	e, err := s.Get(ctx, table, "p", "r", nil)
	if err != nil {
		t.Fatal(err)
	}
	ft.lose(method("PUT"), 1, 500)
	_, err = s.Update(ctx, table, &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: storage.Properties{"v": storage.Int32(1)}}, storage.Replace, e.ETag)
	if !errors.Is(err, storage.ErrUnavailable) || errors.Is(err, storage.ErrPreconditionFailed) || ft.count() != 2 {
		t.Fatalf("Update(ETag) whose response was lost: %v, %d attempts; want ErrUnavailable", err, ft.count())
	}
	ft.lose(method("PUT"), 1, 500)
	if _, err = s.Update(ctx, table, &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: storage.Properties{"v": storage.Int32(2)}}, storage.Replace, ""); err != nil || ft.count() != 2 {
		t.Fatalf("Update(*) whose response was lost: %v, %d attempts; want success", err, ft.count())
	}
	ft.lose(method("DELETE"), 1, 0)
	err = s.Delete(ctx, table, "p", "r", "")
	if !errors.Is(err, storage.ErrUnavailable) || errors.Is(err, storage.ErrNotFound) || ft.count() != 2 {
		t.Fatalf("Delete whose response was lost: %v, %d attempts; want ErrUnavailable", err, ft.count())
	}
	if _, err := s.Get(ctx, table, "p", "r", nil); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("the lost Delete was applied, Get = %v", err)
	}
	// A lost Insert is not retried: ErrUnavailable, and it was applied.
	ft.lose(method("POST"), 1, 500)
	_, err = s.Insert(ctx, table, &storage.Entity{PartitionKey: "p", RowKey: "lost"})
	if !errors.Is(err, storage.ErrUnavailable) || ft.count() != 1 {
		t.Fatalf("Insert whose response was lost: %v, %d attempts", err, ft.count())
	}
	if _, err := s.Insert(ctx, table, &storage.Entity{PartitionKey: "p", RowKey: "r"}); err != nil {
		t.Fatal(err)
	}
	// Retries are bounded: 1 + MaxRetries (4) attempts.
	ft.set(method("GET"), 100, 503)
	_, err = s.Get(ctx, table, "p", "r", nil)
	if !errors.Is(err, storage.ErrUnavailable) || ft.count() != 5 {
		t.Fatalf("Get under constant 503: %v, %d attempts", err, ft.count())
	}
	ft.set(nil, 0, 0)
	if logs.Load() == 0 {
		t.Fatalf("retries were not logged")
	}
}

// TestTimeouts: a hanging request is abandoned after RequestTimeout and
// retried; the caller's context ends everything at once.
func TestTimeouts(t *testing.T) {
	ft := &faultTransport{}
	s := open(t, &aztables.Options{HTTPClient: ft, RequestTimeout: 100 * time.Millisecond, RetryDelay: time.Millisecond})
	table := newTable(t, s)
	ctx := context.Background()
	if _, err := s.Insert(ctx, table, &storage.Entity{PartitionKey: "p", RowKey: "r"}); err != nil {
		t.Fatal(err)
	}
	ft.mu.Lock()
	ft.match, ft.failures, ft.status, ft.seen, ft.delay = method("GET"), 1, 200, 0, time.Hour
	ft.mu.Unlock()
	start := time.Now()
	if _, err := s.Get(ctx, table, "p", "r", nil); err != nil || ft.count() != 2 {
		t.Fatalf("Get after one hung attempt: %v, %d attempts", err, ft.count())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Get took %v", d)
	}
	ft.set(method("GET"), 100, 200)
	cctx, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err := s.Get(cctx, table, "p", "r", nil)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("Get with a 150 ms context: %v after %v", err, time.Since(start))
	}
	ft.set(nil, 0, 0)
}

// TestDateTimeFilters compares DateTimes that differ below a millisecond,
// which Azurite cannot tell apart: every operator, on a property and on
// Timestamp, must agree with storage.Eval.
func TestDateTimeFilters(t *testing.T) {
	s := open(t, nil)
	table := newTable(t, s)
	ctx := context.Background()
	base := time.Date(2021, 3, 4, 5, 6, 7, 123_000_000, time.UTC)
	var ents []*storage.Entity
	var ops []storage.Operation
	for i, d := range []time.Duration{-time.Millisecond, -100, 0, 100, 500_000, 999_900, time.Millisecond, time.Millisecond + 100} {
		e := &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprint("r", i), Properties: storage.Properties{"T": storage.DateTime(base.Add(d))}}
		ents = append(ents, e)
		ops = append(ops, storage.Operation{Kind: storage.OpInsert, Entity: e})
	}
	if _, err := s.Batch(ctx, table, ops); err != nil {
		t.Fatal(err)
	}
	stored, _ := queryAll(t, s, table, storage.Query{})
	for _, lit := range []time.Time{base, base.Add(100), base.Add(-100), base.Add(500_000)} {
		for op := storage.OpEq; op <= storage.OpLe; op++ {
			for _, f := range []storage.Expr{
				&storage.Compare{Prop: "T", Op: op, Value: storage.DateTime(lit)},
				&storage.Not{X: &storage.Compare{Prop: "T", Op: op, Value: storage.DateTime(lit)}},
				storage.Or{&storage.Compare{Prop: "T", Op: op, Value: storage.DateTime(lit)}, storage.Eq(storage.PropRowKey, storage.String("r0"))},
			} {
				var want []*storage.Entity
				for _, e := range ents {
					if storage.Eval(f, e) {
						want = append(want, e)
					}
				}
				got, _ := queryAll(t, s, table, storage.Query{Filter: f})
				if rowKeys(got) != rowKeys(want) {
					t.Errorf("%s: got %q, want %q", storage.FormatOData(f), rowKeys(got), rowKeys(want))
				}
			}
		}
	}
	// Timestamp: each entity's own value selects it exactly.
	for _, x := range stored {
		ts := storage.DateTime(x.Timestamp)
		for op := storage.OpEq; op <= storage.OpLe; op++ {
			f := &storage.Compare{Prop: storage.PropTimestamp, Op: op, Value: ts}
			var want []*storage.Entity
			for _, e := range stored {
				if storage.Eval(f, e) {
					want = append(want, e)
				}
			}
			got, _ := queryAll(t, s, table, storage.Query{Filter: f})
			if rowKeys(got) != rowKeys(want) {
				t.Errorf("%s: got %q, want %q", storage.FormatOData(f), rowKeys(got), rowKeys(want))
			}
		}
	}
}
