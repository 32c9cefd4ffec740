// MySQL Connector/C++ 1.1 (Debian libmysqlcppconn-dev, Oracle's JDBC-like C++ API, here on
// libmariadb): Statement and server-side PreparedStatement (mysql_stmt: setString/setInt/
// setNull, executeUpdate counts, re-execution), typed getters and ResultSetMetaData (SUM over
// INT is DECIMAL), setAutoCommit(false)/commit/rollback seen from a second connection,
// setSavepoint/rollback(savepoint), SQLException error codes and SQLSTATEs, and
// DatabaseMetaData (getTables, getColumns, getPrimaryKeys, getIndexInfo), which the
// connector answers with SHOW and information_schema queries.
//
// Connection from COMPAT_HOST, COMPAT_PORT, COMPAT_USER, COMPAT_PASSWORD; prints
// "ok NAME" / "FAIL NAME: why" / "XFAIL NAME: why" and "N passed, N failed, N skipped".
#include <cppconn/driver.h>
#include <cppconn/exception.h>
#include <cppconn/metadata.h>
#include <cppconn/prepared_statement.h>
#include <cppconn/resultset.h>
#include <cppconn/resultset_metadata.h>
#include <cppconn/statement.h>
#include <mysql_driver.h>

#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

static int passed, failed, xfailed;
static std::string env(const char *k, const char *def) {
	const char *v = std::getenv(k);
	return v && *v ? v : def;
}
static void ok(const std::string &n) { passed++; std::cout << "ok " << n << std::endl; }
static void fail(const std::string &n, const std::string &why) {
	failed++;
	std::cout << "FAIL " << n << ": " << std::regex_replace(why, std::regex("\n"), " // ") << std::endl;
}
static std::string errtext(const sql::SQLException &e) {
	std::ostringstream s;
	s << "SQLException " << e.getErrorCode() << " (" << e.getSQLState() << "): " << e.what();
	return s.str();
}
// check runs fn, which returns what it got as text, and compares it with want.
static void check(const std::string &n, const std::string &want, const std::function<std::string()> &fn) {
	try {
		std::string got = fn();
		if (got == want) ok(n);
		else fail(n, "want [" + want + "], got [" + got + "]");
	} catch (sql::SQLException &e) {
		fail(n, errtext(e));
	} catch (std::exception &e) {
		fail(n, e.what());
	}
}
static void run(const std::string &n, const std::function<void()> &fn) {
	check(n, "", [&] { fn(); return std::string(); });
}

static sql::Connection *connect(const std::string &db) {
	sql::ConnectOptionsMap o;
	o["hostName"] = env("COMPAT_HOST", "127.0.0.1");
	o["port"] = std::atoi(env("COMPAT_PORT", "3306").c_str());
	o["userName"] = env("COMPAT_USER", "root");
	o["password"] = env("COMPAT_PASSWORD", "");
	o["OPT_CHARSET_NAME"] = "utf8mb4";
	if (!db.empty()) o["schema"] = db;
	return sql::mysql::get_mysql_driver_instance()->connect(o);
}

// rows returns the result set as "a,b;c,d" with NULL for SQL NULL.
static std::string rows(sql::ResultSet *rs) {
	std::unique_ptr<sql::ResultSet> owned(rs);
	std::string out;
	unsigned n = rs->getMetaData()->getColumnCount();
	while (rs->next()) {
		if (!out.empty()) out += ";";
		for (unsigned i = 1; i <= n; i++) {
			if (i > 1) out += ",";
			std::string v = rs->getString(i);
			out += rs->wasNull() ? "NULL" : v;
		}
	}
	return out;
}

int main() {
	const std::string DB = "compat_cppconn";
	try {
		std::unique_ptr<sql::Connection> admin(connect(""));
		run("create database", [&] {
			std::unique_ptr<sql::Statement> st(admin->createStatement());
			st->execute("DROP DATABASE IF EXISTS " + DB);
			st->execute("CREATE DATABASE " + DB);
		});
		std::unique_ptr<sql::Connection> db(connect(DB));
		std::unique_ptr<sql::Statement> st(db->createStatement());
		run("create tables (composite primary keys)", [&] {
			st->execute("CREATE TABLE customers (region VARCHAR(16) NOT NULL, id INT NOT NULL, name VARCHAR(64) NOT NULL, "
			            "note VARCHAR(255) NULL, PRIMARY KEY (region, id))");
			st->execute("CREATE TABLE orders (region VARCHAR(16) NOT NULL, customer_id INT NOT NULL, order_no INT NOT NULL, "
			            "qty INT NOT NULL, price DECIMAL(10,2) NULL, PRIMARY KEY (region, customer_id, order_no))");
		});
		try {
			st->execute("CREATE INDEX idx_customers_name ON customers (name)");
			ok("create secondary index");
		} catch (sql::SQLException &e) {
			std::string t = errtext(e);
			if (env("COMPAT_SERVER", "") == "sqlgw" && std::regex_search(t, std::regex("1235|not (yet )?supported", std::regex::icase))) {
				xfailed++;
				std::cout << "XFAIL create secondary index (secondary indexes not supported yet): " << t << std::endl;
			} else fail("create secondary index", t);
		}

		check("insert with a server-side prepared statement (setNull, quotes)", "3", [&] {
			std::unique_ptr<sql::PreparedStatement> ps(db->prepareStatement("INSERT INTO customers (region, id, name, note) VALUES (?, ?, ?, ?)"));
			int n = 0;
			struct { const char *r; int i; const char *name, *note; } cs[] = {
				{"eu", 1, "O'Brien", "it's fragile"}, {"eu", 2, "Smith", nullptr}, {"us", 1, "Jones", "plain"}};
			for (auto &c : cs) {
				ps->setString(1, c.r);
				ps->setInt(2, c.i);
				ps->setString(3, c.name);
				if (c.note) ps->setString(4, c.note);
				else ps->setNull(4, sql::DataType::VARCHAR);
				n += ps->executeUpdate();
			}
			return std::to_string(n);
		});
		check("multi-row insert through Statement (text protocol)", "4", [&] {
			return std::to_string(st->executeUpdate("INSERT INTO orders VALUES ('eu', 1, 1, 10, 1.50), ('eu', 1, 2, 20, 2.25), "
			                                        "('eu', 2, 1, 5, NULL), ('us', 1, 1, 7, 3.00)"));
		});
		std::unique_ptr<sql::PreparedStatement> byKey(db->prepareStatement("SELECT name, note FROM customers WHERE region = ? AND id = ?"));
		auto key = [&](const char *r, int i) {
			byKey->setString(1, r);
			byKey->setInt(2, i);
			return rows(byKey->executeQuery());
		};
		check("read by key with quotes (prepared)", "O'Brien,it's fragile", [&] { return key("eu", 1); });
		check("read NULL by key (prepared, re-executed)", "Smith,NULL", [&] { return key("eu", 2); });
		check("read missing key", "", [&] { return key("eu", 99); });
		check("read by secondary-index column (Statement)", "eu,1", [&] {
			return rows(st->executeQuery("SELECT region, id FROM customers WHERE name = 'O''Brien'"));
		});
		const std::string join = "SELECT c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total FROM customers c "
		                         "JOIN orders o ON o.region = c.region AND o.customer_id = c.id "
		                         "GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id";
		check("join with aggregate (Statement)", "O'Brien,2,30,3.75;Smith,1,5,NULL;Jones,1,7,3.00", [&] { return rows(st->executeQuery(join)); });
		check("join with aggregate (prepared)", "O'Brien,2,30,3.75;Smith,1,5,NULL;Jones,1,7,3.00", [&] {
			std::unique_ptr<sql::PreparedStatement> ps(db->prepareStatement(join));
			return rows(ps->executeQuery());
		});
		check("ResultSetMetaData: SUM(INT) and SUM(DECIMAL) are DECIMAL, COUNT BIGINT, scale 2", "DECIMAL,DECIMAL,BIGINT,2", [&] {
			std::unique_ptr<sql::ResultSet> rs(st->executeQuery("SELECT SUM(qty), SUM(price), COUNT(*) FROM orders"));
			sql::ResultSetMetaData *md = rs->getMetaData();
			return md->getColumnTypeName(1) + "," + md->getColumnTypeName(2) + "," + md->getColumnTypeName(3) + "," +
			       std::to_string(md->getScale(2));
		});
		check("typed getters: getInt, getDouble, getBoolean of wasNull", "10,1.5,1", [&] {
			std::unique_ptr<sql::ResultSet> rs(st->executeQuery("SELECT qty, price FROM orders WHERE region = 'eu' AND customer_id = 1 AND order_no = 1"));
			rs->next();
			std::ostringstream s;
			s << rs->getInt(1) << "," << rs->getDouble(2) << "," << !rs->wasNull();
			return s.str();
		});

		check("update count", "2", [&] { return std::to_string(st->executeUpdate("UPDATE customers SET note = 'updated' WHERE region = 'eu'")); });
		check("delete count (prepared)", "2", [&] {
			std::unique_ptr<sql::PreparedStatement> ps(db->prepareStatement("DELETE FROM orders WHERE region = ? AND customer_id = ?"));
			ps->setString(1, "eu");
			ps->setInt(2, 1);
			return std::to_string(ps->executeUpdate());
		});

		std::unique_ptr<sql::Connection> other(connect(DB));
		std::unique_ptr<sql::Statement> ost(other->createStatement());
		auto countAp = [&] { return rows(ost->executeQuery("SELECT COUNT(*) FROM customers WHERE region = 'ap'")); };
		run("setAutoCommit(false)", [&] { db->setAutoCommit(false); });
		st->executeUpdate("INSERT INTO customers VALUES ('ap', 1, 'Rolled', NULL)");
		check("uncommitted insert invisible to another connection", "0", countAp);
		run("rollback", [&] { db->rollback(); });
		check("rollback discards the insert", "0", countAp);
		st->executeUpdate("INSERT INTO customers VALUES ('ap', 2, 'Kept', 'it''s kept')");
		run("commit", [&] { db->commit(); });
		check("commit keeps the insert", "1", countAp);
		st->executeUpdate("INSERT INTO customers VALUES ('ap', 3, 'Before', NULL)");
		check("setSavepoint / rollback(savepoint) / releaseSavepoint", "2;3", [&] {
			std::unique_ptr<sql::Savepoint> sp(db->setSavepoint("sp1"));
			st->executeUpdate("INSERT INTO customers VALUES ('ap', 4, 'After', NULL)");
			db->rollback(sp.get());
			db->releaseSavepoint(sp.get());
			db->commit();
			return rows(ost->executeQuery("SELECT id FROM customers WHERE region = 'ap' ORDER BY id"));
		});
		db->setAutoCommit(true);

		check("duplicate key is 1062 / 23000", "1062/23000", [&] {
			try {
				st->executeUpdate("INSERT INTO customers VALUES ('eu', 2, 'Dup', NULL)");
				return std::string("no error");
			} catch (sql::SQLException &e) {
				return std::to_string(e.getErrorCode()) + "/" + e.getSQLState();
			}
		});
		check("missing table is 1146 / 42S02", "1146/42S02", [&] {
			try {
				std::unique_ptr<sql::ResultSet> rs(st->executeQuery("SELECT * FROM nope"));
				return std::string("no error");
			} catch (sql::SQLException &e) {
				return std::to_string(e.getErrorCode()) + "/" + e.getSQLState();
			}
		});

		sql::DatabaseMetaData *md = db->getMetaData();
		check("DatabaseMetaData getTables", "customers;orders", [&] {
			std::list<sql::SQLString> types{"TABLE"};
			std::unique_ptr<sql::ResultSet> rs(md->getTables("", DB, "%", types));
			std::string out;
			while (rs->next()) out += (out.empty() ? "" : ";") + rs->getString("TABLE_NAME");
			return out;
		});
		check("DatabaseMetaData getColumns (name, type, nullable)", "region VARCHAR 0;id INT 0;name VARCHAR 0;note VARCHAR 1", [&] {
			std::unique_ptr<sql::ResultSet> rs(md->getColumns("", DB, "customers", "%"));
			std::string out;
			while (rs->next())
				out += (out.empty() ? "" : ";") + rs->getString("COLUMN_NAME") + " " + rs->getString("TYPE_NAME") + " " +
				       std::to_string(rs->getInt("NULLABLE"));
			return out;
		});
		check("DatabaseMetaData getPrimaryKeys", "region 1;customer_id 2;order_no 3", [&] {
			std::unique_ptr<sql::ResultSet> rs(md->getPrimaryKeys("", DB, "orders"));
			std::string out;
			while (rs->next()) out += (out.empty() ? "" : ";") + rs->getString("COLUMN_NAME") + " " + std::to_string(rs->getInt("KEY_SEQ"));
			return out;
		});
		check("DatabaseMetaData getIndexInfo", "PRIMARY region;PRIMARY id;idx_customers_name name", [&] {
			std::unique_ptr<sql::ResultSet> rs(md->getIndexInfo("", DB, "customers", false, false));
			std::string out;
			while (rs->next()) out += (out.empty() ? "" : ";") + rs->getString("INDEX_NAME") + " " + rs->getString("COLUMN_NAME");
			return out;
		});
		check("DatabaseMetaData database product", "1", [&] {
			return std::string(std::regex_search(std::string(md->getDatabaseProductVersion()), std::regex("^[0-9]+\\.[0-9]+")) ? "1" : "0");
		});
	} catch (sql::SQLException &e) {
		fail("script aborted", errtext(e));
	} catch (std::exception &e) {
		fail("script aborted", e.what());
	}
	std::cout << passed << " passed, " << failed << " failed, " << xfailed << " skipped" << std::endl;
	return failed ? 1 : 0;
}
