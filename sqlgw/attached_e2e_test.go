package sqlgw_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	sdk "github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/sqlgw/sqlgw/sqlgw"
	"github.com/sqlgw/sqlgw/sqlgw/sqltest"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/aztables/azurite"
)

// Attached tables: store tables written by other applications (on Azurite
// through the aztables SDK itself, never through sqlgw) appear as SQL
// tables, and what SQL writes reads back unchanged through the SDK.

// seeder writes and reads entities the way another application does.
type seeder interface {
	create(t *testing.T, table string)
	put(t *testing.T, table, pk, rk string, props storage.Properties)
	// get returns the entity's properties as "Edm.Type:text", or nil when
	// the entity does not exist.
	get(t *testing.T, table, pk, rk string) map[string]string
}

// canonical renders a typed value as "Edm.Type:text".
func canonical(v storage.Value) string {
	var s string
	switch v.Type() {
	case storage.TypeString:
		s = v.Str()
	case storage.TypeInt32, storage.TypeInt64:
		s = strconv.FormatInt(v.Int(), 10)
	case storage.TypeDouble:
		s = strconv.FormatFloat(v.Float(), 'g', -1, 64)
	case storage.TypeBoolean:
		s = strconv.FormatBool(v.BoolValue())
	case storage.TypeDateTime:
		s = v.Time().Format(time.RFC3339Nano)
	case storage.TypeGUID:
		g := v.GUIDValue()
		s = fmt.Sprintf("%x-%x-%x-%x-%x", g[0:4], g[4:6], g[6:8], g[8:10], g[10:])
	case storage.TypeBinary:
		s = base64.StdEncoding.EncodeToString(v.Bytes())
	}
	return v.Type().String() + ":" + s
}

func canonicalProps(p storage.Properties) map[string]string {
	out := map[string]string{}
	for k, v := range p {
		out[k] = canonical(v)
	}
	return out
}

// storeSeeder writes through the storage contract (pebble).
type storeSeeder struct{ s storage.Store }

func (s storeSeeder) create(t *testing.T, table string) {
	if err := s.s.CreateTable(context.Background(), table); err != nil {
		t.Fatal(err)
	}
}

func (s storeSeeder) put(t *testing.T, table, pk, rk string, props storage.Properties) {
	if _, err := s.s.Upsert(context.Background(), table, &storage.Entity{PartitionKey: pk, RowKey: rk, Properties: props}, storage.Replace); err != nil {
		t.Fatal(err)
	}
}

func (s storeSeeder) get(t *testing.T, table, pk, rk string) map[string]string {
	e, err := s.s.Get(context.Background(), table, pk, rk, nil)
	if errors.Is(err, storage.ErrNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return canonicalProps(e.Properties)
}

// sdkSeeder writes through the Azure SDK's own client, in the Table
// service's JSON format with explicit type annotations.
type sdkSeeder struct{ svc *sdk.ServiceClient }

func (s sdkSeeder) create(t *testing.T, table string) {
	if _, err := s.svc.CreateTable(context.Background(), table, nil); err != nil {
		t.Fatal(err)
	}
}

func (s sdkSeeder) put(t *testing.T, table, pk, rk string, props storage.Properties) {
	m := map[string]any{"PartitionKey": pk, "RowKey": rk}
	for k, v := range props {
		switch v.Type() {
		case storage.TypeString:
			m[k] = v.Str()
		case storage.TypeInt32:
			m[k] = v.Int()
		case storage.TypeBoolean:
			m[k] = v.BoolValue()
		case storage.TypeDouble:
			m[k] = v.Float()
			m[k+"@odata.type"] = "Edm.Double"
		case storage.TypeInt64:
			m[k] = strconv.FormatInt(v.Int(), 10)
			m[k+"@odata.type"] = "Edm.Int64"
		case storage.TypeDateTime:
			m[k] = v.Time().Format("2006-01-02T15:04:05.0000000Z")
			m[k+"@odata.type"] = "Edm.DateTime"
		case storage.TypeGUID:
			m[k] = strings.TrimPrefix(canonical(v), "Edm.Guid:")
			m[k+"@odata.type"] = "Edm.Guid"
		case storage.TypeBinary:
			m[k] = base64.StdEncoding.EncodeToString(v.Bytes())
			m[k+"@odata.type"] = "Edm.Binary"
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.svc.NewClient(table).UpsertEntity(context.Background(), b, &sdk.UpsertEntityOptions{UpdateMode: sdk.UpdateModeReplace}); err != nil {
		t.Fatal(err)
	}
}

func (s sdkSeeder) get(t *testing.T, table, pk, rk string) map[string]string {
	resp, err := s.svc.NewClient(table).GetEntity(context.Background(), pk, rk, &sdk.GetEntityOptions{Format: to.Ptr(sdk.MetadataFormatFull)})
	if err != nil {
		if strings.Contains(err.Error(), "ResourceNotFound") || strings.Contains(err.Error(), "404") {
			return nil
		}
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(resp.Value)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for k, v := range m {
		if strings.Contains(k, "@") || strings.HasPrefix(k, "odata.") || k == "PartitionKey" || k == "RowKey" || k == "Timestamp" {
			continue
		}
		typ, _ := m[k+"@odata.type"].(string)
		var val storage.Value
		switch x := v.(type) {
		case bool:
			val = storage.Bool(x)
		case json.Number:
			if typ == "Edm.Double" || strings.ContainsAny(x.String(), ".eE") {
				f, _ := x.Float64()
				val = storage.Double(f)
			} else {
				i, _ := x.Int64()
				val = storage.Int32(int32(i))
			}
		case string:
			switch typ {
			case "Edm.Int64":
				i, _ := strconv.ParseInt(x, 10, 64)
				val = storage.Int64(i)
			case "Edm.DateTime":
				tm, err := time.Parse(time.RFC3339Nano, x)
				if err != nil {
					t.Fatal(err)
				}
				val = storage.DateTime(tm)
			case "Edm.Guid":
				out[k] = "Edm.Guid:" + strings.ToLower(x)
				continue
			case "Edm.Binary":
				b, _ := base64.StdEncoding.DecodeString(x)
				val = storage.Binary(b)
			case "Edm.Double":
				f, _ := strconv.ParseFloat(x, 64)
				val = storage.Double(f)
			default:
				val = storage.String(x)
			}
		}
		out[k] = canonical(val)
	}
	return out
}

// attachedFixture is a store with two foreign tables and a server
// attaching them into database "azure".
type attachedFixture struct {
	ts         *sqltest.Server
	seed       seeder
	cust, ord  string
	joined     time.Time
	photoBytes []byte
}

var attachGUID = [16]byte{0x0f, 0x8f, 0xad, 0x5b, 0xd9, 0xcb, 0x46, 0x9f, 0xa1, 0x65, 0x70, 0x86, 0x77, 0x28, 0x95, 0x0e}

// forEachAttached runs f as a subtest on every backend with a new
// attached-table fixture and a session on its database (azure).
func forEachAttached(t *testing.T, f func(t *testing.T, f *attachedFixture, c *sqltest.Runner)) {
	for _, b := range sqltest.Backends {
		t.Run(b.Name, func(t *testing.T) {
			fx := newAttachedFixture(t, b)
			c := sqltest.NewRunner(t, fx.ts.Conn())
			c.Exec("USE azure")
			f(t, fx, c)
		})
	}
}

func newAttachedFixture(t *testing.T, b sqltest.Backend) *attachedFixture {
	store, co := b.Open(t)
	var seed seeder = storeSeeder{store}
	if b.Name == sqltest.Azurite.Name {
		svc, err := sdk.NewServiceClientFromConnectionString(azurite.Shared(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		seed = sdkSeeder{svc}
	}
	suffix := fmt.Sprintf("%08x", rand.Uint32())
	f := &attachedFixture{seed: seed, cust: "Cust" + suffix, ord: "Ord" + suffix,
		joined: time.Date(2024, 1, 2, 3, 4, 5, 123456700, time.UTC), photoBytes: []byte{1, 2, 3, 0xff}}
	seed.create(t, f.cust)
	seed.create(t, f.ord)
	// Several entity types, properties that come and go, every EDM type,
	// keys with spaces and non-ASCII characters.
	seed.put(t, f.cust, "east", "c 1", storage.Properties{
		"Name": storage.String("Ann"), "Age": storage.Int32(30), "Balance": storage.Double(10.5),
		"Active": storage.Bool(true), "Joined": storage.DateTime(f.joined), "Id": storage.GUID(attachGUID),
		"Photo": storage.Binary(f.photoBytes), "Big": storage.Int64(1 << 40)})
	seed.put(t, f.cust, "east", "c2", storage.Properties{
		"Name": storage.String("Bob"), "Age": storage.Int64(40), "Score": storage.Int32(5)})
	seed.put(t, f.cust, "west", "Zürich ü", storage.Properties{
		"Name": storage.String("Zoë"), "Active": storage.Bool(false), "Balance": storage.Double(3), "Age": storage.Int32(7)})
	// Beyond the scanned entities (Scan 3): another entity type.
	seed.put(t, f.cust, "west", "w2", storage.Properties{
		"EntityType": storage.String("note"), "Text": storage.String("hello"), "Score": storage.String("high")})
	seed.put(t, f.ord, "c 1", "o1", storage.Properties{"Amount": storage.Int32(100)})
	seed.put(t, f.ord, "c 1", "o2", storage.Properties{"Amount": storage.Int32(250)})
	seed.put(t, f.ord, "c2", "o1", storage.Properties{"Amount": storage.Int32(7)})

	srv, err := sqlgw.NewServer(context.Background(), sqlgw.Config{
		Listen: "127.0.0.1:0", Catalog: co, Store: store,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		// Only this test's tables (Azurite is shared by the package's tests).
		Attach: sqlgw.AttachConfig{Database: "azure", Scan: 3, Tables: []string{f.cust, f.ord, "Late" + suffix, "Mix" + suffix}},
	})
	if err != nil {
		t.Fatal(err)
	}
	f.ts = sqltest.Serve(t, srv, "")
	return f
}

func TestAttachedTables(t *testing.T) {
	for _, b := range sqltest.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := newAttachedFixture(t, b)
			testAttachedReads(t, f)
			testAttachedWrites(t, f)
			testAttachedCLI(t, f)
			testAttachedPyMySQL(t, f)
			testAttachedDDL(t, f)
		})
	}
}

func testAttachedReads(t *testing.T, f *attachedFixture) {
	c := sqltest.NewRunner(t, f.ts.Conn())
	c.Exec("USE azure")
	c.ExpectRows("SHOW TABLES", f.cust, f.ord)
	c.ExpectRows("SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'azure' AND TABLE_NAME = '"+f.cust+"' ORDER BY ORDINAL_POSITION",
		"PartitionKey\tvarchar(1024)", "RowKey\tvarchar(1024)", "Timestamp\tdatetime(6)",
		"Active\ttinyint", "Age\tbigint", "Balance\tdouble", "Big\tbigint", "Id\tchar(36)", "Joined\tdatetime(6)",
		"Name\tmediumtext", "Photo\tmediumblob", "Score\tint", "_extra\tjson")
	c.ExpectRows("SELECT PartitionKey, RowKey, Name, Age, Balance, Active, Big, Id, Joined, HEX(Photo), Score, _extra FROM "+f.cust+" ORDER BY PartitionKey, RowKey",
		"east\tc 1\tAnn\t30\t10.5\t1\t1099511627776\t0f8fad5b-d9cb-469f-a165-70867728950e\t2024-01-02 03:04:05.123457\t010203FF\tNULL\t{\"Age@odata.type\": \"Edm.Int32\"}",
		"east\tc2\tBob\t40\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\t5\tNULL",
		"west\tZürich ü\tZoë\t7\t3\t0\tNULL\tNULL\tNULL\tNULL\tNULL\t{\"Age@odata.type\": \"Edm.Int32\"}",
		"west\tw2\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\tNULL\t{\"Text\": \"hello\", \"Score\": \"high\", \"EntityType\": \"note\"}") // MySQL's JSON key order
	if got := c.Rows("SELECT COUNT(*) FROM " + f.cust + " WHERE Timestamp > '2020-01-01'"); got[0] != "4" {
		t.Fatalf("Timestamp: %v", got)
	}

	// Key predicates are point and range requests.
	for _, tc := range []struct {
		q              string
		want           []string
		reqs, entities int64
	}{
		{"SELECT Name FROM " + f.cust + " WHERE PartitionKey = 'east' AND RowKey = 'c 1'", []string{"Ann"}, 1, 1},
		{"SELECT Name FROM " + f.cust + " WHERE PartitionKey = 'west' AND RowKey = 'Zürich ü'", []string{"Zoë"}, 1, 1},
		{"SELECT RowKey FROM " + f.cust + " WHERE PartitionKey = 'west' ORDER BY RowKey", []string{"Zürich ü", "w2"}, 1, 2},
		{"SELECT RowKey FROM " + f.cust + " WHERE PartitionKey = 'east' AND RowKey > 'c 1'", []string{"c2"}, 1, 1},
		{"SELECT RowKey FROM " + f.cust + " WHERE PartitionKey >= 'f'", []string{"Zürich ü", "w2"}, 1, 2},
		{"SELECT Name FROM " + f.cust + " WHERE Balance > 5", []string{"Ann"}, 1, 1},
		{"SELECT Name FROM " + f.cust + " WHERE Name = 'Bob'", []string{"Bob"}, 1, 1},
		{"SELECT Name FROM " + f.cust + " WHERE PartitionKey = 'east' AND Active = 1", []string{"Ann"}, 1, 1},
		{"SELECT RowKey FROM " + f.cust + " WHERE PartitionKey = 'west' ORDER BY RowKey LIMIT 1", []string{"Zürich ü"}, 1, 1},
		{"SELECT Name FROM " + f.cust + " WHERE PartitionKey = 'east' AND RowKey LIKE 'c%' ORDER BY Name", []string{"Ann", "Bob"}, 1, 2},
		{"SELECT Name FROM " + f.cust + " WHERE PartitionKey = 'east' AND RowKey BETWEEN 'c' AND 'c 1'", []string{"Ann"}, 1, 1},
		{"SELECT Name FROM " + f.cust + " WHERE PartitionKey = 'east' AND RowKey <= 'c'", nil, 1, 0},
		{"SELECT RowKey FROM " + f.cust + " WHERE PartitionKey LIKE 'we%' ORDER BY RowKey", []string{"Zürich ü", "w2"}, 1, 2},
		{"SELECT Name FROM " + f.cust + " WHERE RowKey = 'c2'", []string{"Bob"}, 1, 1},
		{"SELECT Name FROM " + f.cust + " WHERE PartitionKey IN ('east', 'west') AND RowKey = 'c2'", []string{"Bob"}, 2, 1},
		{"SELECT Name FROM " + f.cust + " WHERE Id = '0f8fad5b-d9cb-469f-a165-70867728950e'", []string{"Ann"}, 1, 1},
		{"SELECT Name FROM " + f.cust + " WHERE Id = '0F8FAD5B-D9CB-469F-A165-70867728950E'", nil, 1, 4},
		{"SELECT Name FROM " + f.cust + " WHERE Big >= 1099511627776", []string{"Ann"}, 1, 1},
		{"SELECT Name FROM " + f.cust + " WHERE (PartitionKey, RowKey) IN (('east', 'c2'), ('west', 'Zürich ü')) ORDER BY Name", []string{"Bob", "Zoë"}, 2, 2},
	} {
		r0, e0 := c.Status()
		c.ExpectRows(tc.q, tc.want...)
		r1, e1 := c.Status()
		if r1-r0 != tc.reqs || e1-e0 != tc.entities {
			t.Errorf("%s: %d requests, %d entities read; want %d, %d", tc.q, r1-r0, e1-e0, tc.reqs, tc.entities)
		}
	}
	// A join of two attached tables.
	c.ExpectRows("SELECT c.Name, o.RowKey, o.Amount FROM "+f.cust+" c JOIN "+f.ord+" o ON o.PartitionKey = c.RowKey WHERE c.PartitionKey = 'east' ORDER BY 1, 2",
		"Ann\to1\t100", "Ann\to2\t250", "Bob\to1\t7")
	c.ExpectRows("SELECT c.Name, SUM(o.Amount) FROM "+f.cust+" c JOIN "+f.ord+" o ON o.PartitionKey = c.RowKey GROUP BY c.Name ORDER BY 1",
		"Ann\t350", "Bob\t7")
}

func testAttachedWrites(t *testing.T, f *attachedFixture) {
	c := sqltest.NewRunner(t, f.ts.Conn())
	c.Exec("USE azure")
	// INSERT writes a plain entity with the columns' EDM types and the
	// JSON column's properties. (Ratio is not whole: Azurite stores a
	// whole Edm.Double as Int32, unlike the service; azurite.md.)
	c.Exec("INSERT INTO " + f.cust + " (PartitionKey, RowKey, Name, Age, Balance, Active, Joined, Id, Photo, Score, _extra) VALUES " +
		"('north', 'n 1 é', 'Neu', 5, 2.5, 1, '2025-05-06 07:08:09.123456', '0f8fad5b-d9cb-469f-a165-70867728950e', X'0102', 9, " +
		`'{"Extra": "x", "Count": 12, "Huge": 5000000000, "Ratio@odata.type": "Edm.Double", "Ratio": 2.25, "When@odata.type": "Edm.DateTime", "When": "2020-01-01T00:00:00Z", "Flag": true}')`)
	want := map[string]string{
		"Name": "Edm.String:Neu", "Age": "Edm.Int64:5", "Balance": "Edm.Double:2.5", "Active": "Edm.Boolean:true",
		"Joined": "Edm.DateTime:2025-05-06T07:08:09.123456Z", "Id": "Edm.Guid:0f8fad5b-d9cb-469f-a165-70867728950e",
		"Photo": "Edm.Binary:AQI=", "Score": "Edm.Int32:9", "Extra": "Edm.String:x", "Count": "Edm.Int32:12",
		"Huge": "Edm.Int64:5000000000", "Ratio": "Edm.Double:2.25", "When": "Edm.DateTime:2020-01-01T00:00:00Z", "Flag": "Edm.Boolean:true"}
	expectEntity(t, f.seed.get(t, f.cust, "north", "n 1 é"), want)

	// UPDATE of one column leaves every other property as it was: same
	// names, same EDM types (Age stays Int32 in its BIGINT column), same
	// 100 ns DateTime.
	before := f.seed.get(t, f.cust, "east", "c 1")
	if n := c.Affected("UPDATE " + f.cust + " SET Name = 'Ann B' WHERE PartitionKey = 'east' AND RowKey = 'c 1'"); n != 1 {
		t.Fatalf("updated %d rows", n)
	}
	before["Name"] = "Edm.String:Ann B"
	expectEntity(t, f.seed.get(t, f.cust, "east", "c 1"), before)

	// Setting and removing keys of the JSON column adds and removes
	// properties; a value that did not fit its column (Score 'high') stays.
	c.Exec("UPDATE " + f.cust + " SET _extra = JSON_REMOVE(JSON_SET(_extra, '$.Nick', 'z'), '$.Text') WHERE PartitionKey = 'west' AND RowKey = 'w2'")
	expectEntity(t, f.seed.get(t, f.cust, "west", "w2"), map[string]string{
		"EntityType": "Edm.String:note", "Score": "Edm.String:high", "Nick": "Edm.String:z"})
	c.ExpectErrno(1366, "UPDATE "+f.cust+" SET Score = 1 WHERE PartitionKey = 'west' AND RowKey = 'w2'")

	// A column set to NULL removes the property.
	c.Exec("UPDATE " + f.cust + " SET Balance = NULL WHERE PartitionKey = 'west' AND RowKey = 'Zürich ü'")
	expectEntity(t, f.seed.get(t, f.cust, "west", "Zürich ü"), map[string]string{
		"Name": "Edm.String:Zoë", "Active": "Edm.Boolean:false", "Age": "Edm.Int32:7"})

	// A duplicate key is MySQL's 1062; the entity is left as it was.
	c.ExpectErrno(1062, "INSERT INTO "+f.cust+" (PartitionKey, RowKey, Name) VALUES ('north', 'n 1 é', 'again')")
	expectEntity(t, f.seed.get(t, f.cust, "north", "n 1 é"), want)

	// DELETE removes the entity.
	c.Exec("DELETE FROM " + f.cust + " WHERE PartitionKey = 'east' AND RowKey = 'c2'")
	if e := f.seed.get(t, f.cust, "east", "c2"); e != nil {
		t.Fatalf("deleted entity still there: %v", e)
	}

	// ETag concurrency: another application's write between the read and
	// the commit fails the commit (1213), never loses that write.
	tx := f.ts.Conn()
	sqltest.NewRunner(t, tx).Exec("USE azure")
	sqltest.NewRunner(t, tx).Exec("BEGIN")
	sqltest.NewRunner(t, tx).ExpectRows("SELECT Amount FROM "+f.ord+" WHERE PartitionKey = 'c2' AND RowKey = 'o1'", "7")
	f.seed.put(t, f.ord, "c2", "o1", storage.Properties{"Amount": storage.Int32(8)})
	sqltest.NewRunner(t, tx).Exec("UPDATE " + f.ord + " SET Amount = Amount + 1 WHERE PartitionKey = 'c2' AND RowKey = 'o1'")
	_, err := tx.ExecContext(context.Background(), "COMMIT")
	if sqltest.Errno(err) != 1213 {
		t.Fatalf("COMMIT after a concurrent write: %v, want 1213", err)
	}
	expectEntity(t, f.seed.get(t, f.ord, "c2", "o1"), map[string]string{"Amount": "Edm.Int32:8"})
}

// testAttachedCLI queries and modifies an attached table with the mysql
// command-line client (mariadb) over TCP.
func testAttachedCLI(t *testing.T, f *attachedFixture) {
	bin, err := exec.LookPath("mariadb")
	if err != nil {
		t.Log("mariadb client not installed: CLI part skipped")
		return
	}
	host, port, _ := net.SplitHostPort(f.ts.Srv.Addr().String())
	run := func(q string) string {
		t.Helper()
		out, err := exec.Command(bin, "--protocol=TCP", "-h", host, "-P", port, "-u", "root", "-N", "-B", "-e", q, "azure").CombinedOutput()
		if err != nil {
			t.Fatalf("mariadb -e %q: %v\n%s", q, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := run("SELECT RowKey, Name FROM " + f.cust + " WHERE PartitionKey = 'west' AND RowKey = 'Zürich ü'"); got != "Zürich ü\tZoë" {
		t.Fatalf("mariadb point get: %q", got)
	}
	run("UPDATE " + f.ord + " SET Amount = 251 WHERE PartitionKey = 'c 1' AND RowKey = 'o2'")
	expectEntity(t, f.seed.get(t, f.ord, "c 1", "o2"), map[string]string{"Amount": "Edm.Int32:251"})
	run("INSERT INTO " + f.ord + " (PartitionKey, RowKey, Amount, _extra) VALUES ('c 9', 'o1', 1, '{\"Note\": \"cli\"}')")
	expectEntity(t, f.seed.get(t, f.ord, "c 9", "o1"), map[string]string{"Amount": "Edm.Int32:1", "Note": "Edm.String:cli"})
}

// testAttachedPyMySQL queries and modifies an attached table with a
// second client library, PyMySQL (the system Python's, as the compat
// suite uses), over TCP with server-side parameters.
func testAttachedPyMySQL(t *testing.T, f *attachedFixture) {
	const py = "/usr/bin/python3"
	if exec.Command(py, "-c", "import pymysql").Run() != nil {
		if azurite.InCI() {
			t.Fatal("PyMySQL not installed (Debian package python3-pymysql; .ci/run installs it)")
		}
		t.Log("PyMySQL not installed: PyMySQL part skipped")
		return
	}
	host, port, _ := net.SplitHostPort(f.ts.Srv.Addr().String())
	script := `
import sys, pymysql
c = pymysql.connect(host=sys.argv[1], port=int(sys.argv[2]), user="root", database="azure", charset="utf8mb4", autocommit=True)
cur = c.cursor()
cur.execute("SELECT Name, Age FROM ` + f.cust + ` WHERE PartitionKey = %s AND RowKey = %s", ("west", "Zürich ü"))
print(cur.fetchall())
cur.execute("UPDATE ` + f.ord + ` SET Amount = %s, _extra = JSON_SET(COALESCE(_extra, '{}'), '$.By', %s) WHERE PartitionKey = %s AND RowKey = %s", (252, "pymysql", "c 1", "o2"))
print(cur.rowcount)
`
	out, err := exec.Command(py, "-c", script, host, port).CombinedOutput()
	if err != nil {
		t.Fatalf("pymysql: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != "(('Zoë', 7),)\n1" {
		t.Fatalf("pymysql printed %q", got)
	}
	expectEntity(t, f.seed.get(t, f.ord, "c 1", "o2"), map[string]string{"Amount": "Edm.Int32:252", "By": "Edm.String:pymysql"})
}

func testAttachedDDL(t *testing.T, f *attachedFixture) {
	c := sqltest.NewRunner(t, f.ts.Conn())
	c.Exec("USE azure")
	// A new property in the scanned entities: REFRESH TABLE gives it a
	// column; a renamed column keeps its property.
	f.seed.put(t, f.cust, "east", "c 0", storage.Properties{"Name": storage.String("Cy"), "Level": storage.Int32(3)})
	c.Exec("ALTER TABLE " + f.cust + " RENAME COLUMN Name TO FullName")
	c.ExpectRows("REFRESH TABLE "+f.cust, "azure."+f.cust+"\trefresh\tnote\t20 columns inferred from up to 3 entities", "azure."+f.cust+"\trefresh\tstatus\tOK")
	c.ExpectRows("SELECT FullName, Level FROM "+f.cust+" WHERE PartitionKey = 'east' ORDER BY RowKey", "Cy\t3", "Ann B\tNULL")
	c.Exec("UPDATE " + f.cust + " SET FullName = 'Cyd' WHERE PartitionKey = 'east' AND RowKey = 'c 0'")
	expectEntity(t, f.seed.get(t, f.cust, "east", "c 0"), map[string]string{"Name": "Edm.String:Cyd", "Level": "Edm.Int32:3"})
	// MODIFY pins a column's type; ADD COLUMN maps a property by name;
	// DROP COLUMN moves a property back into the JSON column.
	c.Exec("ALTER TABLE " + f.cust + " MODIFY Score VARCHAR(10)")
	c.Exec("ALTER TABLE " + f.cust + " ADD COLUMN EntityType VARCHAR(20)")
	c.Exec("ALTER TABLE " + f.cust + " DROP COLUMN Level")
	c.ExpectRows("SELECT RowKey, Score, EntityType, _extra FROM "+f.cust+" WHERE PartitionKey IN ('east', 'west') AND RowKey IN ('c 0', 'w2') ORDER BY RowKey",
		"c 0\tNULL\tNULL\t{\"Level\": 3}", "w2\thigh\tnote\t{\"Nick\": \"z\"}")
	c.Exec("UPDATE " + f.cust + " SET EntityType = 'memo', Score = 'low' WHERE PartitionKey = 'west' AND RowKey = 'w2'")
	expectEntity(t, f.seed.get(t, f.cust, "west", "w2"), map[string]string{
		"EntityType": "Edm.String:memo", "Score": "Edm.String:low", "Nick": "Edm.String:z"})
	c.Exec("REFRESH TABLE " + f.cust)
	// A String property pinned to VARCHAR(n) stays so (it can be indexed).
	c.ExpectRows("SELECT COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'azure' AND TABLE_NAME = '"+f.cust+"' AND COLUMN_NAME = 'Score'", "varchar(10)")
	// UNIQUE indexes are refused (TestAttachedIndexes has the others).
	c.ExpectErrno(1235, "CREATE UNIQUE INDEX by_age ON "+f.cust+" (Age)")
	// TRUNCATE is refused; DROP TABLE detaches and leaves the entities.
	c.ExpectErrno(1235, "TRUNCATE TABLE "+f.cust)
	c.Exec("DROP TABLE " + f.ord)
	if e := f.seed.get(t, f.ord, "c 1", "o1"); e == nil {
		t.Fatal("DROP TABLE of an attached table deleted its entities")
	}
	// A store table created after startup is attached when a statement
	// names it (one TableExists-like look at the store, not billed to the
	// session), with no REFRESH needed.
	late := "Late" + strings.TrimPrefix(f.cust, "Cust")
	f.seed.create(t, late)
	f.seed.put(t, late, "p", "r", storage.Properties{"V": storage.Int64(-5)})
	r0, e0 := c.Status()
	c.ExpectRows("SELECT PartitionKey, RowKey, V FROM azure."+late, "p\tr\t-5")
	if r1, e1 := c.Status(); r1-r0 != 1 || e1-e0 != 1 {
		t.Errorf("first query of a late table: %d requests, %d entities", r1-r0, e1-e0)
	}
	// REFRESH TABLE of a store table not attached attaches it again.
	c.ExpectRows("REFRESH TABLE azure."+f.ord, "azure."+f.ord+"\trefresh\tnote\tattached store table "+f.ord, "azure."+f.ord+"\trefresh\tstatus\tOK")
	// o2's Amount: 252 once testAttachedPyMySQL's UPDATE ran, else 251.
	amount := "252"
	if exec.Command("/usr/bin/python3", "-c", "import pymysql").Run() != nil {
		amount = "251"
	}
	c.ExpectRows("SELECT Amount FROM "+f.ord+" WHERE PartitionKey = 'c 1' ORDER BY RowKey", "100", amount)
}

func expectEntity(t *testing.T, got, want map[string]string) {
	t.Helper()
	var diff []string
	for k, v := range want {
		if got[k] != v {
			diff = append(diff, fmt.Sprintf("%s: got %q, want %q", k, got[k], v))
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			diff = append(diff, fmt.Sprintf("%s: unexpected %q", k, v))
		}
	}
	if len(diff) > 0 {
		sort.Strings(diff)
		t.Fatalf("entity differs:\n%s", strings.Join(diff, "\n"))
	}
}

// TestAttachedEntityTypes: one store table holding several entity types
// (the design guide's heterogeneous entity types pattern) becomes one SQL
// table per type, by a discriminator property or by a RowKey prefix.
func TestAttachedEntityTypes(t *testing.T) {
	for _, b := range sqltest.Backends {
		t.Run(b.Name, func(t *testing.T) {
			f := newAttachedFixture(t, b)
			mix := "Mix" + strings.TrimPrefix(f.cust, "Cust")
			f.seed.create(t, mix)
			f.seed.put(t, mix, "c1", "CUST_c1", storage.Properties{"EntityType": storage.String("Customer"), "Name": storage.String("Ann"), "Tier": storage.Int32(2)})
			f.seed.put(t, mix, "c1", "ORDER_001", storage.Properties{"EntityType": storage.String("Order"), "Amount": storage.Double(12.5), "Paid": storage.Bool(true)})
			f.seed.put(t, mix, "c1", "ORDER_002", storage.Properties{"EntityType": storage.String("Order"), "Amount": storage.Double(7.25)})
			f.seed.put(t, mix, "c2", "CUST_c2", storage.Properties{"EntityType": storage.String("Customer"), "Name": storage.String("Bob")})
			f.seed.put(t, mix, "c2", "NOTE", storage.Properties{"Text": storage.String("no type")})
			f.seed.put(t, mix, "c2", "ORDER_003", storage.Properties{"EntityType": storage.String("Order"), "Amount": storage.Double(1.5)})
			c := sqltest.NewRunner(t, f.ts.Conn())
			c.Exec("USE azure")
			c.ExpectRows("REFRESH TABLE azure."+mix,
				"azure."+mix+"\trefresh\tnote\tattached store table "+mix, "azure."+mix+"\trefresh\tstatus\tOK")
			c.ExpectRows("REFRESH TABLE "+mix+" TYPES BY EntityType",
				"azure."+mix+"\trefresh\tnote\tattached azure."+mix+"_Customer for EntityType = 'Customer' (6 columns)",
				"azure."+mix+"\trefresh\tnote\tattached azure."+mix+"_Order for EntityType = 'Order' (6 columns)",
				"azure."+mix+"\trefresh\tstatus\tOK")
			cust, ord := mix+"_Customer", mix+"_Order"
			c.ExpectRows("SELECT PartitionKey, RowKey, Name, Tier, _extra FROM "+cust+" ORDER BY PartitionKey",
				"c1\tCUST_c1\tAnn\t2\tNULL", "c2\tCUST_c2\tBob\tNULL\tNULL")
			c.ExpectRows("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'azure' AND TABLE_NAME = '"+ord+"' ORDER BY ORDINAL_POSITION",
				"PartitionKey", "RowKey", "Timestamp", "Amount", "Paid", "_extra")
			for _, tc := range []struct {
				q              string
				want           []string
				reqs, entities int64
			}{
				{"SELECT RowKey, Amount FROM " + ord + " WHERE PartitionKey = 'c1' ORDER BY RowKey", []string{"ORDER_001\t12.5", "ORDER_002\t7.25"}, 1, 2},
				{"SELECT Name FROM " + cust + " WHERE PartitionKey = 'c1' AND RowKey = 'CUST_c1'", []string{"Ann"}, 1, 1},
				{"SELECT Amount FROM " + ord + " WHERE PartitionKey = 'c1' AND RowKey = 'CUST_c1'", nil, 1, 1},
				{"SELECT COUNT(*) FROM " + ord, []string{"3"}, 1, 3},
			} {
				r0, e0 := c.Status()
				c.ExpectRows(tc.q, tc.want...)
				r1, e1 := c.Status()
				if r1-r0 != tc.reqs || e1-e0 != tc.entities {
					t.Errorf("%s: %d requests, %d entities read; want %d, %d", tc.q, r1-r0, e1-e0, tc.reqs, tc.entities)
				}
			}
			c.ExpectRows("SELECT c.Name, SUM(o.Amount) FROM "+cust+" c JOIN "+ord+" o ON o.PartitionKey = c.PartitionKey GROUP BY c.Name ORDER BY 1",
				"Ann\t19.75", "Bob\t1.5")
			// Writes carry the discriminator; another type's key is a duplicate.
			c.Exec("INSERT INTO " + ord + " (PartitionKey, RowKey, Amount) VALUES ('c2', 'ORDER_004', 3.5)")
			expectEntity(t, f.seed.get(t, mix, "c2", "ORDER_004"), map[string]string{"EntityType": "Edm.String:Order", "Amount": "Edm.Double:3.5"})
			c.ExpectErrno(1062, "INSERT INTO "+ord+" (PartitionKey, RowKey, Amount) VALUES ('c2', 'CUST_c2', 1.25)")
			c.ExpectErrno(1366, "INSERT INTO "+ord+" (PartitionKey, RowKey, _extra) VALUES ('c2', 'ORDER_005', '{\"EntityType\": \"Customer\"}')")
			c.Exec("UPDATE " + ord + " SET Paid = 1 WHERE PartitionKey = 'c1'")
			expectEntity(t, f.seed.get(t, mix, "c1", "CUST_c1"), map[string]string{"EntityType": "Edm.String:Customer", "Name": "Edm.String:Ann", "Tier": "Edm.Int32:2"})
			expectEntity(t, f.seed.get(t, mix, "c1", "ORDER_002"), map[string]string{"EntityType": "Edm.String:Order", "Amount": "Edm.Double:7.25", "Paid": "Edm.Boolean:true"})
			if n := c.Affected("DELETE FROM " + cust + " WHERE PartitionKey = 'c2'"); n != 1 {
				t.Fatalf("deleted %d customers", n)
			}
			if f.seed.get(t, mix, "c2", "NOTE") == nil || f.seed.get(t, mix, "c2", "ORDER_003") == nil {
				t.Fatal("DELETE of one type's rows touched another's")
			}

			// By RowKey prefix.
			c.ExpectRows("REFRESH TABLE "+mix+" TYPES BY ROWKEY PREFIX '_'",
				"azure."+mix+"\trefresh\tnote\tattached azure."+mix+"_CUST for RowKey prefix 'CUST_' (7 columns)",
				"azure."+mix+"\trefresh\tnote\tattached azure."+mix+"_ORDER_2 for RowKey prefix 'ORDER_' (7 columns)", // _Order exists: names compare case-insensitively
				"azure."+mix+"\trefresh\tstatus\tOK")
			r0, e0 := c.Status()
			c.ExpectRows("SELECT RowKey, Amount FROM "+mix+"_ORDER_2 WHERE PartitionKey = 'c2' ORDER BY RowKey", "ORDER_003\t1.5", "ORDER_004\t3.5")
			if r1, e1 := c.Status(); r1-r0 != 1 || e1-e0 != 2 {
				t.Errorf("RowKey-prefix type: %d requests, %d entities", r1-r0, e1-e0)
			}
			c.ExpectErrno(1366, "INSERT INTO "+mix+"_ORDER_2 (PartitionKey, RowKey, Amount) VALUES ('c3', 'X_1', 1.5)")
			c.Exec("INSERT INTO " + mix + "_ORDER_2 (PartitionKey, RowKey, Amount, EntityType) VALUES ('c3', 'ORDER_9', 1.5, 'Order')")
			expectEntity(t, f.seed.get(t, mix, "c3", "ORDER_9"), map[string]string{"EntityType": "Edm.String:Order", "Amount": "Edm.Double:1.5"})
			c.ExpectErrno(1064, "REFRESH TABLE "+mix+" TYPES BY ROWKEY PREFIX")

			// A secondary index on one entity type's table holds that type's
			// entities only, and its lookups verify the type too.
			c.Exec("CREATE INDEX by_amount ON " + ord + " (Amount)")
			c.ExpectRows("SELECT RowKey FROM "+ord+" FORCE INDEX (by_amount) WHERE Amount >= 1.5 ORDER BY Amount, RowKey",
				c.Rows("SELECT RowKey FROM "+ord+" IGNORE INDEX (by_amount) WHERE Amount >= 1.5 ORDER BY Amount, RowKey")...)
			c.ExpectRows("SELECT COUNT(*) FROM "+ord+" FORCE INDEX (by_amount) WHERE Amount >= 0", "5")
			if r, e := c.Cost("SELECT RowKey FROM " + ord + " WHERE Amount = 3.5"); r != 2 || e != 2 {
				t.Errorf("typed index lookup: %d requests, %d entities; want 2, 2", r, e)
			}
			c.ExpectRows("CHECK TABLE "+ord, "azure."+ord+"\tcheck\tstatus\tOK")
		})
	}
}
