// Hibernate 3.6 (Debian libhibernate3-java) with JPA annotations over MariaDB
// Connector/J: entities with composite keys (@IdClass), hbm2ddl.auto=update creating the
// tables from DatabaseMetaData, then a schema-update script computed again, which must be
// empty; Session get by composite key, HQL with parameters, a join with aggregates, HQL
// bulk update/delete counts, transactions, and a native SUM whose JDBC type Hibernate
// passes through. Connection from COMPAT_HOST, COMPAT_PORT, COMPAT_USER, COMPAT_PASSWORD.

import java.io.Serializable;
import java.math.BigDecimal;
import java.sql.*;
import java.util.*;
import javax.persistence.*;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;
import org.hibernate.cfg.Configuration;
import org.hibernate.dialect.Dialect;
import org.hibernate.tool.hbm2ddl.DatabaseMetadata;

public class HibernateClient {
    static int passed, failed, xfailed;
    static final String server = env("COMPAT_SERVER", "");
    static final String DB = "compat_hibernate";

    public static class CustomerId implements Serializable {
        public String region;
        public Integer id;
        public CustomerId() {}
        public CustomerId(String r, Integer i) { region = r; id = i; }
        @Override public boolean equals(Object o) {
            return o instanceof CustomerId && region.equals(((CustomerId) o).region) && id.equals(((CustomerId) o).id);
        }
        @Override public int hashCode() { return Objects.hash(region, id); }
    }

    @Entity @Table(name = "customers") @IdClass(CustomerId.class)
    public static class Customer {
        @Id @Column(length = 16) public String region;
        @Id public Integer id;
        @Column(length = 64, nullable = false) public String name;
        @Column(length = 255) public String note;
        public Customer() {}
        Customer(String r, int i, String n, String t) { region = r; id = i; name = n; note = t; }
    }

    public static class OrderId implements Serializable {
        public String region;
        public Integer customerId;
        public Integer orderNo;
        @Override public boolean equals(Object o) {
            if (!(o instanceof OrderId)) return false;
            OrderId x = (OrderId) o;
            return region.equals(x.region) && customerId.equals(x.customerId) && orderNo.equals(x.orderNo);
        }
        @Override public int hashCode() { return Objects.hash(region, customerId, orderNo); }
    }

    @Entity @Table(name = "orders") @IdClass(OrderId.class)
    public static class Order {
        @Id @Column(length = 16) public String region;
        @Id @Column(name = "customer_id") public Integer customerId;
        @Id @Column(name = "order_no") public Integer orderNo;
        @Column(nullable = false) public Integer qty;
        @Column(precision = 10, scale = 2) public BigDecimal price;
        public Order() {}
        Order(String r, int c, int o, int q, String p) { region = r; customerId = c; orderNo = o; qty = q; price = p == null ? null : new BigDecimal(p); }
    }

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

    static Configuration config() {
        return new Configuration()
            .addAnnotatedClass(Customer.class).addAnnotatedClass(Order.class)
            .setProperty("hibernate.connection.driver_class", "org.mariadb.jdbc.Driver")
            .setProperty("hibernate.connection.url", url(DB))
            .setProperty("hibernate.connection.username", env("COMPAT_USER", "root"))
            .setProperty("hibernate.connection.password", env("COMPAT_PASSWORD", ""))
            .setProperty("hibernate.dialect", "org.hibernate.dialect.MySQL5InnoDBDialect")
            .setProperty("hibernate.connection.pool_size", "2")
            .setProperty("hibernate.hbm2ddl.auto", "update");
    }

    static void body() throws Exception {
        try (Connection a = DriverManager.getConnection(url(""), env("COMPAT_USER", "root"), env("COMPAT_PASSWORD", ""));
             Statement s = a.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DB);
            s.execute("CREATE DATABASE " + DB);
            ok("create database");
        }
        Configuration cfg = config();
        SessionFactory sf = cfg.buildSessionFactory(); // hbm2ddl.auto=update creates the tables
        try (Connection c = DriverManager.getConnection(url(DB), env("COMPAT_USER", "root"), env("COMPAT_PASSWORD", ""))) {
            List<String> t = new ArrayList<>();
            ResultSet rs = c.getMetaData().getTables(DB, null, "%", new String[] {"TABLE"});
            while (rs.next()) t.add(rs.getString("TABLE_NAME"));
            eq("hbm2ddl update created the tables", List.of("customers", "orders"), t);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE INDEX idx_customers_name ON customers (name)");
                ok("create secondary index");
            } catch (SQLException e) {
                String m = err(e);
                if (server.equals("sqlgw") && m.matches("(?is).*(\\b1235\\b|not (yet )?supported).*")) {
                    xfailed++; System.out.println("XFAIL create secondary index (secondary indexes not supported yet): " + m);
                } else fail("create secondary index", m);
            }
            // The update script against the schema as created: nothing to change.
            eqf("second schema update has nothing to do", List.of(), () -> {
                Configuration again = config();
                again.buildMappings();
                Dialect d = Dialect.getDialect(again.getProperties());
                return Arrays.asList(again.generateSchemaUpdateScript(d, new DatabaseMetadata(c, d)));
            });
        }

        Session s = sf.openSession();
        eqf("save and commit", true, () -> {
            Transaction tx = s.beginTransaction();
            s.save(new Customer("eu", 1, "O'Brien", "it's fragile"));
            s.save(new Customer("eu", 2, "Smith", null));
            s.save(new Customer("us", 1, "Jones", "plain"));
            s.save(new Order("eu", 1, 1, 10, "1.50"));
            s.save(new Order("eu", 1, 2, 20, "2.25"));
            s.save(new Order("eu", 2, 1, 5, null));
            s.save(new Order("us", 1, 1, 7, "3.00"));
            tx.commit();
            return true;
        });
        s.clear();
        eqf("get by composite key with quotes", "O'Brien|it's fragile", () -> {
            Customer x = (Customer) s.get(Customer.class, new CustomerId("eu", 1));
            return x == null ? null : x.name + "|" + x.note;
        });
        eqf("NULL column", null, () -> ((Customer) s.get(Customer.class, new CustomerId("eu", 2))).note);
        eqf("HQL with a parameter", List.of(1), () -> s.createQuery("select c.id from HibernateClient$Customer c where c.name = :n")
            .setParameter("n", "O'Brien").list());
        eqf("HQL join with aggregates", "O'Brien 2 30 3.75; Smith 1 5 null; Jones 1 7 3.00; ", () -> {
            StringBuilder b = new StringBuilder();
            for (Object o : s.createQuery("select c.name, count(*), sum(o.qty), sum(o.price) from HibernateClient$Customer c, HibernateClient$Order o"
                    + " where o.region = c.region and o.customerId = c.id group by c.region, c.id, c.name order by c.region, c.id").list()) {
                Object[] r = (Object[]) o;
                b.append(r[0]).append(' ').append(r[1]).append(' ').append(r[2]).append(' ').append(r[3]).append("; ");
            }
            return b.toString();
        });
        eqf("native SUM(INT) is BigDecimal", "BigDecimal", () -> {
            Object v = s.createSQLQuery("SELECT SUM(qty) FROM orders").uniqueResult();
            return v == null ? null : v.getClass().getSimpleName();
        });
        eqf("HQL bulk update count", 2, () -> {
            Transaction tx = s.beginTransaction();
            int n = s.createQuery("update HibernateClient$Customer set note = :n where region = :r").setParameter("n", "updated").setParameter("r", "eu").executeUpdate();
            tx.commit();
            return n;
        });
        eqf("HQL bulk delete count", 2, () -> {
            Transaction tx = s.beginTransaction();
            int n = s.createQuery("delete from HibernateClient$Order where region = :r and customerId = :c").setParameter("r", "eu").setParameter("c", 1).executeUpdate();
            tx.commit();
            return n;
        });
        Body countAp = () -> ((Number) s.createQuery("select count(*) from HibernateClient$Customer where region = 'ap'").uniqueResult()).longValue();
        eqf("rollback discards", 0L, () -> {
            Transaction tx = s.beginTransaction();
            s.save(new Customer("ap", 1, "Rolled", null));
            s.flush();
            tx.rollback();
            s.clear();
            return countAp.run();
        });
        eqf("commit keeps", 1L, () -> {
            Transaction tx = s.beginTransaction();
            s.save(new Customer("ap", 2, "Kept", null));
            tx.commit();
            return countAp.run();
        });
        s.close();
        sf.close();
    }
}
