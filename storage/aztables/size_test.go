package aztables_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	sdk "github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// TestServiceMeasuresBody shows, through the raw SDK (no validation of
// ours in the way), what storage.EntitySize accounts for: Azurite refuses
// an Insert Or Replace whose JSON body is over 1 MiB although the Table
// service's formula puts the entity at 786 KB (twelve 64 KiB Binary
// values travel as 1.05 MB of base64), and accepts eleven.
func TestServiceMeasuresBody(t *testing.T) {
	if os.Getenv(azurite.EnvConnStr) != "" {
		t.Skipf("skipping: this checks Azurite's body measure, and %s points elsewhere", azurite.EnvConnStr)
	}
	s := open(t, nil)
	table := newTable(t, s)
	co := &sdk.ClientOptions{}
	co.Retry.MaxRetries = -1
	svc, err := sdk.NewServiceClientFromConnectionString(azurite.Shared(t), co)
	if err != nil {
		t.Fatal(err)
	}
	raw := svc.NewClient(table)
	body := func(n int) ([]byte, *storage.Entity) {
		e := &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprint("r", n), Properties: storage.Properties{}}
		m := fmt.Sprintf(`{"PartitionKey":"p","RowKey":"r%d"`, n)
		for i := 0; i < n; i++ {
			b := make([]byte, storage.MaxValueBytes)
			e.Properties[fmt.Sprintf("b%02d", i)] = storage.Binary(b)
			m += fmt.Sprintf(`,"b%02d":"%s","b%02d@odata.type":"Edm.Binary"`, i, base64.StdEncoding.EncodeToString(b), i)
		}
		return []byte(m + "}"), e
	}
	ctx := context.Background()
	b11, e11 := body(11)
	if _, err := raw.UpsertEntity(ctx, b11, nil); err != nil {
		t.Fatalf("11 Binary values of 64 KiB (%d bytes of body): %v", len(b11), err)
	}
	if n := storage.EntitySize(e11); n < len(b11) || n > storage.MaxEntityBytes {
		t.Fatalf("EntitySize %d for a body of %d bytes", n, len(b11))
	}
	b12, e12 := body(12)
	_, err = raw.UpsertEntity(ctx, b12, nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.ErrorCode != "EntityTooLarge" {
		t.Fatalf("12 Binary values of 64 KiB (%d bytes of body, %d by the formula): %v, want EntityTooLarge", len(b12), 4+2*5+12*(8+6+4+storage.MaxValueBytes), err)
	}
	if n := storage.EntitySize(e12); n <= storage.MaxEntityBytes {
		t.Fatalf("EntitySize %d for an entity Azurite refuses", n)
	}
}

// batchBodies is a transport that records the length of every batch
// request body it sends.
type batchBodies struct {
	mu  sync.Mutex
	len []int
}

func (b *batchBodies) Do(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "$batch") && req.Body != nil {
		data, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body.Close()
		b.mu.Lock()
		b.len = append(b.len, len(data))
		b.mu.Unlock()
		req.Body = io.NopCloser(bytes.NewReader(data))
	}
	return http.DefaultClient.Do(req)
}

// TestBatchBodyWithinMeasure: the request body of a batch is never longer
// than the sum of storage.BatchOpSize over its operations (what
// ValidateBatch holds to 4 MiB), for every kind of operation and keys that
// grow most when percent-encoded in the URL (quotes, non-ASCII).
func TestBatchBodyWithinMeasure(t *testing.T) {
	bb := &batchBodies{}
	s := open(t, &aztables.Options{HTTPClient: bb})
	table := newTable(t, s)
	ctx := context.Background()
	keys := []string{"a", strings.Repeat("'", 200), strings.Repeat("\u4e2d", 170), strings.Repeat("\U0001F600", 120), "<&>\"%+"}
	for _, kind := range []storage.OpKind{storage.OpInsert, storage.OpUpsert, storage.OpUpdate, storage.OpDelete} {
		var ops []storage.Operation
		for i, k := range keys {
			e := &storage.Entity{PartitionKey: "p", RowKey: fmt.Sprint(k, i), Properties: storage.Properties{
				"s": storage.String(k), "b": storage.Binary([]byte(k)), "n": storage.Int64(-1 << 62), "d": storage.Double(-1.0 / 3)}}
			if kind != storage.OpInsert {
				if _, err := s.Upsert(ctx, table, e, storage.Replace); err != nil {
					t.Fatal(err)
				}
			} else if err := s.Delete(ctx, table, e.PartitionKey, e.RowKey, ""); err != nil && !errors.Is(err, storage.ErrNotFound) {
				t.Fatal(err)
			}
			ops = append(ops, storage.Operation{Kind: kind, Entity: e})
		}
		bb.mu.Lock()
		bb.len = nil
		bb.mu.Unlock()
		if _, err := s.Batch(ctx, table, ops); err != nil {
			t.Fatalf("batch of %v: %v", kind, err)
		}
		measure := 0
		for _, op := range ops {
			measure += storage.BatchOpSize(op)
		}
		bb.mu.Lock()
		sent := bb.len
		bb.mu.Unlock()
		if len(sent) != 1 || sent[0] > measure {
			t.Fatalf("batch of %d %v operations: bodies of %v bytes, BatchOpSize sums to %d", len(ops), kind, sent, measure)
		}
		t.Logf("batch of %d %v operations: body %d bytes, BatchOpSize sums to %d", len(ops), kind, sent[0], measure)
	}
}
