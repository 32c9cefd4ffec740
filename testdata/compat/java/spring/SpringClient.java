// Spring JDBC (Debian libspring-jdbc-java) over a HikariCP pool (Debian libhikaricp-java)
// and MariaDB Connector/J: the pool's connection checks and state resets, JdbcTemplate
// and NamedParameterJdbcTemplate queries and updates, batchUpdate, TransactionTemplate
// commit and rollback (DataSourceTransactionManager), a read-only transaction, and
// a nested transaction (PROPAGATION_NESTED = savepoint). Connection from COMPAT_HOST,
// COMPAT_PORT, COMPAT_USER, COMPAT_PASSWORD; prints ok/FAIL/XFAIL lines and a summary.

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.math.BigDecimal;
import java.sql.*;
import java.util.*;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

public class SpringClient {
    static int passed, failed, xfailed;
    static final String server = env("COMPAT_SERVER", "");
    static final String DB = "compat_spring";

    interface Body { Object run() throws Exception; }
    static String env(String k, String d) { String v = System.getenv(k); return v == null ? d : v; }
    static void ok(String n) { passed++; System.out.println("ok " + n); }
    static void fail(String n, String why) { failed++; System.out.println("FAIL " + n + ": " + String.join(" // ", String.valueOf(why).split("\n"))); }
    static String err(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (b.length() > 0) b.append(" <- ");
            b.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage());
        }
        return b.toString();
    }
    static void eq(String n, Object want, Object got) { if (Objects.equals(want, got)) ok(n); else fail(n, "want " + want + ", got " + got); }
    static void eqf(String n, Object want, Body b) {
        Object got;
        try { got = b.run(); } catch (Throwable e) { fail(n, err(e)); return; }
        eq(n, want, got);
    }
    static String url(String db) {
        return "jdbc:mariadb://" + env("COMPAT_HOST", "127.0.0.1") + ":" + env("COMPAT_PORT", "3306") + "/" + db;
    }

    public static void main(String[] args) {
        try { body(); } catch (Throwable e) { fail("script aborted", err(e)); }
        System.out.println(passed + " passed, " + failed + " failed, " + xfailed + " skipped");
        System.exit(failed == 0 ? 0 : 1);
    }

    static void body() throws Exception {
        try (Connection a = DriverManager.getConnection(url(""), env("COMPAT_USER", "root"), env("COMPAT_PASSWORD", ""));
             Statement s = a.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DB);
            s.execute("CREATE DATABASE " + DB);
            ok("create database");
        }
        HikariConfig hc = new HikariConfig();
        hc.setJdbcUrl(url(DB));
        hc.setUsername(env("COMPAT_USER", "root"));
        hc.setPassword(env("COMPAT_PASSWORD", ""));
        hc.setMaximumPoolSize(3);
        hc.setAutoCommit(true);
        HikariDataSource ds = new HikariDataSource(hc);
        JdbcTemplate jt = new JdbcTemplate(ds);
        NamedParameterJdbcTemplate np = new NamedParameterJdbcTemplate(ds);
        TransactionTemplate tt = new TransactionTemplate(new DataSourceTransactionManager(ds));

        eqf("create tables (composite primary keys)", true, () -> {
            jt.execute("CREATE TABLE customers (region VARCHAR(16) NOT NULL, id INT NOT NULL, name VARCHAR(64) NOT NULL,"
                    + " note VARCHAR(255) NULL, PRIMARY KEY (region, id))");
            jt.execute("CREATE TABLE orders (region VARCHAR(16) NOT NULL, customer_id INT NOT NULL, order_no INT NOT NULL,"
                    + " qty INT NOT NULL, price DECIMAL(10,2) NULL, PRIMARY KEY (region, customer_id, order_no))");
            return true;
        });
        try {
            jt.execute("CREATE INDEX idx_customers_name ON customers (name)");
            ok("create secondary index");
        } catch (Exception e) {
            String m = err(e);
            if (server.equals("sqlgw") && m.matches("(?is).*(\\b1235\\b|not (yet )?supported).*")) {
                xfailed++; System.out.println("XFAIL create secondary index (secondary indexes not supported yet): " + m);
            } else fail("create secondary index", m);
        }
        eqf("batchUpdate", 3, () -> jt.batchUpdate("INSERT INTO customers VALUES (?, ?, ?, ?)", Arrays.asList(
                new Object[] {"eu", 1, "O'Brien", "it's fragile"}, new Object[] {"eu", 2, "Smith", null},
                new Object[] {"us", 1, "Jones", "plain"})).length);
        eqf("update with parameters", 4, () -> {
            int n = 0;
            for (Object[] o : new Object[][] {{"eu", 1, 1, 10, new BigDecimal("1.50")}, {"eu", 1, 2, 20, new BigDecimal("2.25")},
                    {"eu", 2, 1, 5, null}, {"us", 1, 1, 7, new BigDecimal("3.00")}})
                n += jt.update("INSERT INTO orders VALUES (?, ?, ?, ?, ?)", o);
            return n;
        });
        eqf("queryForObject by composite key", "it's fragile",
                () -> jt.queryForObject("SELECT note FROM customers WHERE region = ? AND id = ?", String.class, "eu", 1));
        eqf("named parameters", List.of("eu:1"), () -> np.query("SELECT region, id FROM customers WHERE name = :name",
                new MapSqlParameterSource("name", "O'Brien"), (rs, i) -> rs.getString(1) + ":" + rs.getInt(2)));
        eqf("queryForList join with aggregate", "O'Brien=2/30/3.75 Smith=1/5/null Jones=1/7/3.00 ", () -> {
            StringBuilder b = new StringBuilder();
            for (Map<String, Object> r : jt.queryForList("SELECT c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total"
                    + " FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id"
                    + " GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id"))
                b.append(r.get("name")).append('=').append(r.get("n")).append('/').append(r.get("qty")).append('/').append(r.get("total")).append(' ');
            return b.toString();
        });
        eqf("update count", 2, () -> jt.update("UPDATE customers SET note = ? WHERE region = ?", "updated", "eu"));
        eqf("delete count", 2, () -> jt.update("DELETE FROM orders WHERE region = ? AND customer_id = ?", "eu", 1));
        Body countAp = () -> jt.queryForObject("SELECT COUNT(*) FROM customers WHERE region = 'ap'", Long.class);
        eqf("TransactionTemplate rollback", 0L, () -> {
            tt.execute(st -> {
                jt.update("INSERT INTO customers VALUES ('ap', 1, 'Rolled', NULL)");
                st.setRollbackOnly();
                return null;
            });
            return countAp.run();
        });
        eqf("TransactionTemplate commit", 1L, () -> {
            tt.execute(st -> jt.update("INSERT INTO customers VALUES ('ap', 2, 'Kept', NULL)"));
            return countAp.run();
        });
        eqf("nested transaction (savepoint) rolled back alone", 2L, () -> {
            tt.execute(st -> {
                jt.update("INSERT INTO customers VALUES ('ap', 3, 'Outer', NULL)");
                TransactionTemplate nested = new TransactionTemplate(tt.getTransactionManager());
                nested.setPropagationBehavior(TransactionDefinition.PROPAGATION_NESTED);
                nested.execute(st2 -> {
                    jt.update("INSERT INTO customers VALUES ('ap', 4, 'Inner', NULL)");
                    st2.setRollbackOnly();
                    return null;
                });
                return null;
            });
            return countAp.run();
        });
        eqf("read-only transaction reads", 3L, () -> {
            TransactionTemplate ro = new TransactionTemplate(tt.getTransactionManager());
            ro.setReadOnly(true);
            return ro.execute(st -> jt.queryForObject("SELECT COUNT(*) FROM customers WHERE region = 'eu' OR region = 'us'", Long.class));
        });
        eqf("pool connections are valid after use", true, () -> {
            try (Connection c = ds.getConnection()) { return c.isValid(2) && c.getAutoCommit(); }
        });
        ds.close();
    }
}
