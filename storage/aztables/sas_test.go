package aztables_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// TestSAS opens the store with a TableEndpoint + SharedAccessSignature
// connection string (an account SAS signed with Azurite's key) and uses it.
func TestSAS(t *testing.T) {
	good := azurite.Shared(t)
	if !strings.Contains(good, azurite.AccountKey) {
		t.Skip("skipping: the connection string is not Azurite's")
	}
	query, _ := azurite.AccountSAS(t)
	ep := good[strings.Index(good, "TableEndpoint=")+len("TableEndpoint="):]
	ep = strings.TrimSuffix(ep, ";")
	s, err := aztables.Open(context.Background(), "TableEndpoint="+ep+";SharedAccessSignature="+query, &aztables.Options{Logf: t.Logf})
	if err != nil {
		t.Fatalf("Open with SAS: %v", err)
	}
	defer s.Close()
	ctx := context.Background()
	table := newTable(t, s)
	if _, err := s.Insert(ctx, table, &storage.Entity{PartitionKey: "p", RowKey: "r", Properties: storage.Properties{"v": storage.Int32(1)}}); err != nil {
		t.Fatalf("Insert with SAS: %v", err)
	}
	if _, err := s.Batch(ctx, table, []storage.Operation{{Kind: storage.OpUpsert, Entity: &storage.Entity{PartitionKey: "p", RowKey: "b"}}}); err != nil {
		t.Fatalf("Batch with SAS: %v", err)
	}
	all, _ := queryAll(t, s, table, storage.Query{Filter: storage.Ge("v", storage.Int32(0))})
	if rowKeys(all) != "r" {
		t.Fatalf("Query with SAS: %q", rowKeys(all))
	}
	if err := s.Delete(ctx, table, "p", "r", ""); err != nil {
		t.Fatalf("Delete with SAS: %v", err)
	}
	if _, err := s.Get(ctx, table, "p", "r", nil); !errors.Is(err, storage.ErrNotFound) {
		t.Fatalf("Get after Delete with SAS: %v", err)
	}

	// The endpoint-only form with the SAS as the URL's query.
	s2, err := aztables.Open(ctx, ep+"?"+query, nil)
	if err != nil {
		t.Fatalf("Open endpoint?SAS: %v", err)
	}
	defer s2.Close()
	if e, err := s2.Get(ctx, table, "p", "b", nil); err != nil || e.RowKey != "b" {
		t.Fatalf("Get through endpoint?SAS: %v", err)
	}
}

// TestCosmosCapabilities: a Cosmos DB Table API endpoint gets the stricter
// key limits and the unsorted flag, and keys over them are refused before
// any request (the endpoint here does not exist).
func TestCosmosCapabilities(t *testing.T) {
	s, err := aztables.Open(context.Background(), "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=a2V5;TableEndpoint=https://acct.table.cosmos.azure.com:443/;", nil)
	if err != nil {
		t.Fatal(err)
	}
	caps := s.Capabilities()
	if !caps.Unsorted || caps.Limits != storage.CosmosLimits {
		t.Fatalf("Cosmos capabilities %+v", caps)
	}
	_, err = s.Insert(context.Background(), "tbl", &storage.Entity{PartitionKey: strings.Repeat("k", 256), RowKey: "r"})
	if !errors.Is(err, storage.ErrInvalidKey) {
		t.Fatalf("256-byte key on Cosmos: %v, want ErrInvalidKey", err)
	}
	s2, err := aztables.Open(context.Background(), "AccountName=acct;AccountKey=a2V5", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := s2.Capabilities(); c.Unsorted || c.Limits != storage.DefaultLimits {
		t.Fatalf("Table service capabilities %+v", c)
	}
	s3, err := aztables.Open(context.Background(), "AccountName=acct;AccountKey=a2V5", &aztables.Options{Cosmos: true})
	if err != nil {
		t.Fatal(err)
	}
	if c := s3.Capabilities(); !c.Unsorted || c.Limits != storage.CosmosLimits {
		t.Fatalf("Options.Cosmos capabilities %+v", c)
	}
}
