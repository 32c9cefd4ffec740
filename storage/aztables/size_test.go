package aztables_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	sdk "github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/sqlgw/sqlgw/storage"
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
