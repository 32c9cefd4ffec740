package compat

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	// sql.SystemVariables is built by this package's init, which must run
	// before the init below adds to it.
	_ "github.com/dolthub/go-mysql-server/sql/variables"
)

// MySQL 8 system variables go-mysql-server lacks
//
// Connectors, ORMs and administration tools read (and a few set) system
// variables when they connect: @@optimizer_switch, @@have_ssl,
// @@innodb_version, @@innodb_file_per_table and others. go-mysql-server
// does not define them, so the statement failed with "Unknown system
// variable" and the tool with it. The ones below are defined with MySQL
// 8.0.33's default values; a variable go-mysql-server defines is left as
// it is.
//
// Only optimizer_switch and profiling can be changed (tools set
// optimizer_switch for their session; the value is kept and reported, and
// has no effect: sqlgw's planner has no such switches, and SHOW PROFILES
// is not supported). The rest describe InnoDB, replication and build
// features; they are read-only here, so SET GLOBAL innodb_... fails with
// MySQL's 1238 rather than being silently ignored. @@have_ssl and
// @@have_openssl say YES when the server has a TLS certificate
// (PublishTLS).

// optimizerSwitchDefault is MySQL 8.0.33's @@optimizer_switch.
const optimizerSwitchDefault = "index_merge=on,index_merge_union=on,index_merge_sort_union=on,index_merge_intersection=on," +
	"engine_condition_pushdown=on,index_condition_pushdown=on,mrr=on,mrr_cost_based=on,block_nested_loop=on," +
	"batched_key_access=off,materialization=on,semijoin=on,loosescan=on,firstmatch=on,duplicateweedout=on," +
	"subquery_materialization_cost_based=on,use_index_extensions=on,condition_fanout_filter=on,derived_merge=on," +
	"use_invisible_indexes=off,skip_scan=on,hash_join=on,subquery_to_derived=off,prefer_ordering_index=on," +
	"hypergraph_optimizer=off,derived_condition_pushdown=on"

func init() {
	global, both := sql.GetMysqlScope(sql.SystemVariableScope_Global), sql.GetMysqlScope(sql.SystemVariableScope_Both)
	str := func(name, def string) *sql.MysqlSystemVariable {
		return &sql.MysqlSystemVariable{Name: name, Scope: global, Type: types.NewSystemStringType(name), Default: def}
	}
	onOff := func(name string, on bool) *sql.MysqlSystemVariable {
		d := int8(0)
		if on {
			d = 1
		}
		return &sql.MysqlSystemVariable{Name: name, Scope: global, Type: types.NewSystemBoolType(name), Default: d}
	}
	num := func(name string, def int64) *sql.MysqlSystemVariable {
		return &sql.MysqlSystemVariable{Name: name, Scope: global, Type: types.NewSystemIntType(name, 0, 1<<62, false), Default: def}
	}
	vars := []*sql.MysqlSystemVariable{
		{Name: "optimizer_switch", Scope: both, Dynamic: true, SetVarHintApplies: true,
			Type: types.NewSystemStringType("optimizer_switch"), Default: optimizerSwitchDefault},
		{Name: "profiling", Scope: both, Dynamic: true, Type: types.NewSystemBoolType("profiling"), Default: int8(0)},
		num("profiling_history_size", 15),
		str("have_ssl", "DISABLED"),
		str("have_openssl", "DISABLED"),
		str("have_compress", "YES"),
		str("have_dynamic_loading", "YES"),
		str("have_geometry", "YES"),
		str("have_profiling", "YES"),
		str("have_query_cache", "NO"),
		str("have_rtree_keys", "YES"),
		str("have_symlink", "DISABLED"),
		str("innodb_version", "8.0.33"),
		onOff("innodb_file_per_table", true),
		num("innodb_page_size", 16384),
		str("innodb_default_row_format", "dynamic"),
		num("innodb_flush_log_at_trx_commit", 1),
		onOff("innodb_read_only", false),
		num("innodb_ft_min_token_size", 3),
		onOff("innodb_stats_persistent", true),
		num("innodb_stats_persistent_sample_pages", 20),
		onOff("innodb_rollback_on_timeout", false),
		onOff("innodb_print_all_deadlocks", false),
		onOff("innodb_deadlock_detect", true),
		num("innodb_thread_concurrency", 0),
		num("innodb_io_capacity", 200),
		num("innodb_log_file_size", 50331648),
		num("innodb_redo_log_capacity", 104857600),
		num("innodb_undo_tablespaces", 2),
		onOff("innodb_doublewrite", true),
		str("innodb_flush_method", "fsync"),
		str("innodb_data_file_path", "ibdata1:12M:autoextend"),
		str("innodb_temp_data_file_path", "ibtmp1:12M:autoextend"),
		num("innodb_log_buffer_size", 16777216),
		num("innodb_open_files", 4000),
		num("innodb_online_alter_log_max_size", 134217728),
		num("innodb_sort_buffer_size", 1048576),
		num("innodb_max_dirty_pages_pct", 90),
		num("sync_binlog", 1),
		str("relay_log", ""),
		str("log_bin_basename", ""),
		onOff("log_bin_trust_function_creators", false),
		str("transaction_write_set_extraction", "XXHASH64"),
		num("expire_logs_days", 0),
		num("replica_parallel_workers", 4),
		num("slave_parallel_workers", 4),
		num("mysqlx_port", 33060),
		num("query_alloc_block_size", 8192),
		num("query_prealloc_size", 8192),
	}
	var add []sql.SystemVariable
	for _, v := range vars {
		if _, _, ok := sql.SystemVariables.GetGlobal(v.Name); !ok {
			add = append(add, v)
		}
	}
	sql.SystemVariables.AddSystemVariables(add)
}

// PublishTLS makes @@have_ssl and @@have_openssl say whether clients can
// use TLS.
func PublishTLS(on bool) {
	v := "DISABLED"
	if on {
		v = "YES"
	}
	sql.SystemVariables.AssignValues(map[string]any{"have_ssl": v, "have_openssl": v})
}
