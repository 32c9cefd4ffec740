// Command gormcompat drives GORM (gorm.io/gorm with gorm.io/driver/mysql over
// go-sql-driver/mysql, whose parameterised queries are server-side prepared
// statements) against a MySQL-wire server: AutoMigrate of models with composite
// primary keys, a separate CreateIndex, CRUD with affected-row counts, a join with
// aggregates, transactions (rollback, commit, nested = SAVEPOINT), auto-increment ids,
// and AutoMigrate run again, which must find nothing to change: every statement it
// sends is logged and none may be CREATE or ALTER.
//
// Connection from COMPAT_HOST, COMPAT_PORT, COMPAT_USER, COMPAT_PASSWORD; prints
// "ok NAME" / "FAIL NAME: why" / "XFAIL NAME: why" and "N passed, N failed, N skipped".
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

const dbName = "compat_gorm"

// Customer has a composite primary key (region, id).
type Customer struct {
	Region string  `gorm:"primaryKey;size:16"`
	ID     int     `gorm:"primaryKey;autoIncrement:false"`
	Name   string  `gorm:"size:64;not null"`
	Note   *string `gorm:"size:255"`
}

// CustomerIndexed is Customer with its secondary index declared, for CreateIndex.
type CustomerIndexed struct {
	Region string  `gorm:"primaryKey;size:16"`
	ID     int     `gorm:"primaryKey;autoIncrement:false"`
	Name   string  `gorm:"size:64;not null;index:idx_customers_name"`
	Note   *string `gorm:"size:255"`
}

func (CustomerIndexed) TableName() string { return "customers" }

// Order has a three-column primary key.
type Order struct {
	Region     string  `gorm:"primaryKey;size:16"`
	CustomerID int     `gorm:"primaryKey;autoIncrement:false"`
	OrderNo    int     `gorm:"primaryKey;autoIncrement:false"`
	Qty        int     `gorm:"not null"`
	Price      *string `gorm:"type:decimal(10,2)"`
}

// Event has an auto-increment key and timestamps.
type Event struct {
	ID        uint   `gorm:"primaryKey"`
	Kind      string `gorm:"size:32;not null"`
	Payload   []byte `gorm:"type:varbinary(64)"`
	CreatedAt time.Time
	UpdatedAt time.Time
}

var (
	passed, failed, xfailed int
	server                  = os.Getenv("COMPAT_SERVER")
)

func ok(name string) { passed++; fmt.Println("ok", name) }
func fail(name string, why any) {
	failed++
	fmt.Printf("FAIL %s: %v\n", name, why)
}
func eq(name string, want, got any) {
	if reflect.DeepEqual(want, got) {
		ok(name)
	} else {
		fail(name, fmt.Sprintf("want %+v, got %+v", want, got))
	}
}
func check(name string, err error) bool {
	if err != nil {
		fail(name, err)
		return false
	}
	ok(name)
	return true
}

var notSupported = regexp.MustCompile(`(?i)\b1235\b|not (yet )?supported`)

// sqlLog records every statement GORM sends while recording is on.
type sqlLog struct {
	logger.Interface
	mu   sync.Mutex
	on   bool
	stmt []string
}

func (l *sqlLog) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.on {
		s, _ := fc()
		l.stmt = append(l.stmt, s)
	}
}

func (l *sqlLog) LogMode(logger.LogLevel) logger.Interface { return l }

func (l *sqlLog) record(on bool) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.stmt
	l.on, l.stmt = on, nil
	return out
}

func dsn(db string) string {
	cfg := gomysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = fmt.Sprintf("%s:%s", envOr("COMPAT_HOST", "127.0.0.1"), os.Getenv("COMPAT_PORT"))
	cfg.User = envOr("COMPAT_USER", "root")
	cfg.Passwd = os.Getenv("COMPAT_PASSWORD")
	cfg.DBName = db
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.Params = map[string]string{"charset": "utf8mb4"}
	return cfg.FormatDSN()
}

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

func main() {
	defer func() {
		if r := recover(); r != nil {
			fail("script aborted", r)
		}
		fmt.Printf("%d passed, %d failed, %d skipped\n", passed, failed, xfailed)
		if failed > 0 {
			os.Exit(1)
		}
	}()
	run()
}

func run() {
	raw, err := sql.Open("mysql", dsn(""))
	if err != nil {
		panic(err)
	}
	_, err = raw.Exec("DROP DATABASE IF EXISTS " + dbName)
	if err == nil {
		_, err = raw.Exec("CREATE DATABASE " + dbName)
	}
	raw.Close()
	if !check("create database", err) {
		return
	}

	log := &sqlLog{Interface: logger.Discard}
	db, err := gorm.Open(mysql.Open(dsn(dbName)), &gorm.Config{Logger: log})
	if !check("open", err) {
		return
	}

	log.record(true)
	check("AutoMigrate (composite primary keys, auto-increment)", db.AutoMigrate(&Customer{}, &Order{}, &Event{}))
	creates := 0
	for _, s := range log.record(false) {
		if strings.HasPrefix(strings.ToUpper(strings.TrimSpace(s)), "CREATE TABLE") {
			creates++
		}
	}
	eq("first AutoMigrate logged its CREATE TABLEs", 3, creates)
	log.record(true)
	err = db.Migrator().CreateIndex(&CustomerIndexed{}, "idx_customers_name")
	createIndexSQL := log.record(false)
	indexOK := false
	switch {
	case err == nil:
		ok("CreateIndex (separate CREATE INDEX)")
		indexOK = true
	case server == "sqlgw" && notSupported.MatchString(err.Error()):
		xfailed++
		fmt.Printf("XFAIL CreateIndex (secondary indexes not supported yet): %v\n", err)
	default:
		fail("CreateIndex (separate CREATE INDEX)", fmt.Sprintf("%v %q", err, createIndexSQL))
	}
	eq("HasIndex", indexOK, db.Migrator().HasIndex(&CustomerIndexed{}, "idx_customers_name"))
	eq("HasTable", true, db.Migrator().HasTable(&Order{}))

	// AutoMigrate again: nothing to change, so no CREATE or ALTER may be sent.
	models := []any{&Customer{}, &Order{}, &Event{}}
	if indexOK {
		models[0] = &CustomerIndexed{}
	}
	log.record(true)
	err = db.AutoMigrate(models...)
	stmts := log.record(false)
	if check("AutoMigrate again", err) {
		var ddl []string
		for _, s := range stmts {
			if t := strings.ToUpper(strings.TrimSpace(s)); strings.HasPrefix(t, "CREATE") || strings.HasPrefix(t, "ALTER") {
				ddl = append(ddl, s)
			}
		}
		eq("second AutoMigrate sends no CREATE/ALTER", []string(nil), ddl)
	}
	ct, err := db.Migrator().ColumnTypes(&Order{})
	if check("ColumnTypes", err) {
		var got []string
		for _, c := range ct {
			n, _ := c.Nullable()
			pk, _ := c.PrimaryKey()
			got = append(got, fmt.Sprintf("%s %s %v %v", c.Name(), strings.ToLower(c.DatabaseTypeName()), n, pk))
		}
		eq("column types", []string{"region varchar false true", "customer_id bigint false true",
			"order_no bigint false true", "qty bigint false false", "price decimal true false"}, got)
	}

	str := func(s string) *string { return &s }
	customers := []Customer{{"eu", 1, "O'Brien", str("it's fragile")}, {"eu", 2, "Smith", nil}, {"us", 1, "Jones", str("plain")}}
	res := db.Create(&customers)
	if check("batch insert", res.Error) {
		eq("batch insert rows affected", int64(3), res.RowsAffected)
	}
	orders := []Order{{"eu", 1, 1, 10, str("1.50")}, {"eu", 1, 2, 20, str("2.25")}, {"eu", 2, 1, 5, nil}, {"us", 1, 1, 7, str("3.00")}}
	check("insert orders", db.Create(&orders).Error)

	var c Customer
	if check("read by key", db.Where("region = ? AND id = ?", "eu", 1).Take(&c).Error) {
		eq("read by key values", Customer{"eu", 1, "O'Brien", str("it's fragile")}, c)
	}
	c = Customer{}
	if check("read NULL by key", db.Take(&c, "region = ? AND id = ?", "eu", 2).Error) {
		eq("NULL is nil", (*string)(nil), c.Note)
	}
	eq("missing key is ErrRecordNotFound", true, errors.Is(db.Take(&Customer{}, "region = ? AND id = ?", "eu", 99).Error, gorm.ErrRecordNotFound))
	var byName []Customer
	if check("find by secondary-index column", db.Where("name = ?", "O'Brien").Find(&byName).Error) {
		eq("find by name", 1, len(byName))
	}

	type agg struct {
		Name  string
		N     int64
		Qty   string
		Total sql.NullString
	}
	var aggs []agg
	q := db.Table("customers c").Select("c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total").
		Joins("JOIN orders o ON o.region = c.region AND o.customer_id = c.id").Where("c.region <> ?", "zz").
		Group("c.region, c.id, c.name").Order("c.region, c.id")
	if check("join with aggregate", q.Scan(&aggs).Error) {
		eq("join with aggregate rows", []agg{{"O'Brien", 2, "30", sql.NullString{String: "3.75", Valid: true}}, {"Smith", 1, "5", sql.NullString{}},
			{"Jones", 1, "7", sql.NullString{String: "3.00", Valid: true}}}, aggs)
	}
	if rows, err := db.Raw("SELECT SUM(qty) AS s, COUNT(*) AS n FROM orders WHERE region = ?", "eu").Rows(); check("column types of aggregates", err) {
		cts, _ := rows.ColumnTypes()
		var got []string
		for _, c := range cts {
			got = append(got, c.DatabaseTypeName())
		}
		rows.Close()
		eq("SUM(INT) is DECIMAL, COUNT is BIGINT", []string{"DECIMAL", "BIGINT"}, got)
	}

	res = db.Model(&Customer{}).Where("region = ?", "eu").Update("note", "updated")
	if check("update", res.Error) {
		eq("update rows affected", int64(2), res.RowsAffected)
	}
	res = db.Model(&Customer{}).Where("region = ? AND id = ?", "eu", 1).Update("note", "updated")
	if check("update with no change", res.Error) {
		eq("update with no change affects 0 rows", int64(0), res.RowsAffected)
	}
	res = db.Where("region = ? AND customer_id = ?", "eu", 1).Delete(&Order{})
	if check("delete", res.Error) {
		eq("delete rows affected", int64(2), res.RowsAffected)
	}

	countAp := func() int64 {
		var n int64
		db.Model(&Customer{}).Where("region = ?", "ap").Count(&n)
		return n
	}
	errRollback := errors.New("roll back")
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Customer{"ap", 1, "Rolled", nil}).Error; err != nil {
			return err
		}
		return errRollback
	})
	eq("transaction returned its error", true, errors.Is(err, errRollback))
	eq("rollback discards", int64(0), countAp())
	err = db.Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(&Customer{"ap", 2, "Outer", nil}).Error; err != nil {
			return err
		}
		inner := tx.Transaction(func(tx2 *gorm.DB) error { // SAVEPOINT
			if err := tx2.Create(&Customer{"ap", 3, "Inner", nil}).Error; err != nil {
				return err
			}
			return errRollback
		})
		if !errors.Is(inner, errRollback) {
			return fmt.Errorf("nested transaction: %w", inner)
		}
		return nil
	})
	check("transaction with a nested savepoint commits", err)
	eq("commit kept the outer row only", int64(1), countAp())

	e1, e2 := Event{Kind: "first", Payload: []byte{0, 1, 2}}, Event{Kind: "second"}
	check("auto-increment insert", db.Create(&e1).Error)
	check("auto-increment insert 2", db.Create(&e2).Error)
	eq("auto-increment ids ascend", true, e1.ID > 0 && e2.ID > e1.ID)
	var back Event
	if check("read event back", db.First(&back, e1.ID).Error) {
		eq("event round trip", []any{"first", []byte{0, 1, 2}, true},
			[]any{back.Kind, back.Payload, back.CreatedAt.Sub(e1.CreatedAt).Abs() < time.Second})
	}
	sqlDB, _ := db.DB()
	sqlDB.Close()
}
