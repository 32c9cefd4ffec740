package sqlgw_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
)

// TestAttachedPointGetCost measures, on Azurite, point gets of an attached
// table through sqlgw (the mysql protocol, a prepared statement) against
// the same gets through the aztables SDK directly, in one run, and logs
// the ratio. Skipped unless SQLGW_ATTACH_BENCH=1 (a measurement, not a
// test):
//
//	SQLGW_ATTACH_BENCH=1 go test ./sqlgw -run TestAttachedPointGetCost -count=1 -v
func TestAttachedPointGetCost(t *testing.T) {
	if os.Getenv("SQLGW_ATTACH_BENCH") != "1" {
		t.Skip("set SQLGW_ATTACH_BENCH=1 to measure")
	}
	f := newAttachedFixture(t, sqltest.Azurite)
	const n = 500
	for i := 0; i < 50; i++ {
		f.seed.put(t, f.ord, fmt.Sprintf("p%02d", i), "r", storage.Properties{"Amount": storage.Int32(int32(i))})
	}
	c := f.ts.Conn()
	sqltest.NewRunner(t, c).Exec("USE azure")
	stmt, err := c.PrepareContext(context.Background(), "SELECT Amount FROM "+f.ord+" WHERE PartitionKey = ? AND RowKey = 'r'")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	sdkGet := func(i int) { f.seed.get(t, f.ord, fmt.Sprintf("p%02d", i%50), "r") }
	sqlGet := func(i int) {
		var a int
		if err := stmt.QueryRow(fmt.Sprintf("p%02d", i%50)).Scan(&a); err != nil || a != i%50 {
			t.Fatalf("got %d, %v", a, err)
		}
	}
	measure := func(f func(int)) time.Duration {
		start := time.Now()
		for i := 0; i < n; i++ {
			f(i)
		}
		return time.Since(start) / n
	}
	measure(sdkGet)
	measure(sqlGet) // warm up both
	var sdk, gw time.Duration
	for round := 0; round < 3; round++ { // interleaved, the machine is shared
		sdk += measure(sdkGet)
		gw += measure(sqlGet)
	}
	t.Logf("point get, mean of %d x 3: SDK GetEntity %v, sqlgw SELECT by PartitionKey+RowKey %v: ratio %.2f", n, sdk/3, gw/3, float64(gw)/float64(sdk))
}
