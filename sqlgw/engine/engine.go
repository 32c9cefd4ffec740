package engine

import (
	"context"
	"fmt"

	gms "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/sirupsen/logrus"

	"github.com/sqlgw/sqlgw/catalog"
	"github.com/sqlgw/sqlgw/sqlgw/engine/compat"
	"github.com/sqlgw/sqlgw/sqlgw/engine/groupjoin"
	"github.com/sqlgw/sqlgw/sqlgw/metrics"
	"github.com/sqlgw/sqlgw/storage"
	"github.com/sqlgw/sqlgw/storage/recorder"
)

// Engine is sqlgw's go-mysql-server engine over a store, without a
// listener: for go-mysql-server's enginetest harness and for tools. Build
// sessions with NewSession; every store request of a session is counted in
// its Sqlgw_* status variables.
type Engine struct {
	// Engine is the go-mysql-server engine (provider, analyzer with sqlgw's
	// rules, CREATE TABLE hook).
	Engine *gms.Engine
	// Provider is the database provider over the catalog.
	Provider sql.MutableDatabaseProvider
	gw       *Gateway
	rec      *recorder.Store
	store    storage.Store
	release  func() // the store's claim (storage.Claimer), if any
}

// New opens the catalog in store and builds the engine. Authentication
// is off (go-mysql-server's default) until accounts are added to
// Engine.Analyzer.Catalog.MySQLDb.
func New(ctx context.Context, store storage.Store, opts catalog.Options) (*Engine, error) {
	mets := metrics.New()
	rec := recorder.New(metrics.NewStore(store, mets))
	cat, err := catalog.Open(WithoutCounters(ctx), rec, opts)
	if err != nil {
		return nil, fmt.Errorf("sqlgw: opening the catalog: %w", err)
	}
	gw := newGateway(rec, cat)
	gw.Metrics = mets
	var release func()
	if c, ok := store.(storage.Claimer); ok {
		gw.alone, release = c.Claim()
	}
	pro := &provider{gw: gw}
	logrus.SetLevel(logrus.ErrorLevel)
	a := analyzer.NewBuilder(pro).AddPreAnalyzeRule(groupjoin.RuleID, groupjoin.Rule(tableGroup)).AddPostAnalyzeRule(pushdownRuleID, pushdownRule).
		AddPostAnalyzeRule(compat.ExactAggRuleID, compat.ExactAggRule).AddPostAnalyzeRule(joinBatchRuleID, joinBatchRule).
		AddPostAnalyzeRule(compat.SetOpUnsignedRuleID, compat.SetOpUnsignedRule).AddPostAnalyzeRule(floatDivRuleID, floatDivRule).AddOverrides(sql.EngineOverrides{
		Hooks:           sql.ExecutionHooks{CreateTable: sql.CreateTable{PreSQLExecution: gw.createTableHook}},
		Builder:         sql.BuilderOverrides{Parser: gw.schemaParser()}, // dump_generated_values.go
		SchemaFormatter: compat.NewSchemaFormatter(),                     // compat/show_create_generated.go
	}).Build()
	a.ExecBuilder.PriorityBuilder = explainBuilder{exec: a.ExecBuilder}
	a.Catalog.InfoSchema = newInfoSchema(a.Catalog.InfoSchema) // CARDINALITY (stats.go)
	a.Coster = coster{inner: a.Coster}
	a.Catalog.StatsProvider = &statsProvider{gw: gw, inner: a.Catalog.StatsProvider} // stats_provider.go
	engine := gms.New(a, &gms.Config{VersionPostfix: "sqlgw"})
	engine.ProcessList = &procList{ProcessList: engine.ProcessList, gw: gw} // the plan cache's statements (fastproc.go)
	engine.Analyzer.Catalog.RegisterFunction(sql.NewEmptyContext(), compat.AssignFunction, compat.VarFunction, NumberDateFunction, TemporalNumberFunction, UnsignedArithFunction, compat.DateIntervalFunction, FloatTextFunction)
	return &Engine{Engine: engine, Provider: pro, gw: gw, rec: rec, store: store, release: release}, nil
}

// IgnoreSecondaryIndexes makes CREATE INDEX and index definitions in
// CREATE TABLE succeed without creating anything, for go-mysql-server's
// enginetest suites, whose setup scripts declare indexes everywhere. Never
// used by the server: there, they are errors (1235) until secondary indexes
// exist.
func (e *Engine) IgnoreSecondaryIndexes() { e.gw.ignoreIndexes = true }

// NewSession returns a sqlgw session (transactions, counters) around base.
func (e *Engine) NewSession(base *sql.BaseSession) sql.Session { return e.gw.newSession(base) }

// Gateway is the engine's shared state, for the server's connection
// handler and statement interceptors.
func (e *Engine) Gateway() *Gateway { return e.gw }

// Recorder returns the request recorder in front of the store.
func (e *Engine) Recorder() *recorder.Store { return e.rec }

// Close closes the engine and the store.
func (e *Engine) Close() error {
	e.Engine.Close()
	if e.release != nil {
		e.release()
	}
	return e.store.Close()
}

// AttachTables attaches the store's foreign tables (see AttachConfig) and
// returns the names of the tables attached now.
func (e *Engine) AttachTables(ctx context.Context, cfg AttachConfig) ([]string, error) {
	return e.gw.AttachTables(ctx, cfg)
}

// tableGroup is the table group of t when it is one of the engine's tables
// ("" otherwise), for the group-join rule (sqlgw/engine/groupjoin).
func tableGroup(t sql.Table) string {
	if x, ok := t.(*Table); ok {
		return x.meta().Group
	}
	return ""
}
