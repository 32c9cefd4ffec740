// EclipseLink 2.7 (Debian libeclipselink-java), the JPA reference implementation, over
// MariaDB Connector/J: ddl-generation create-or-extend-tables (CREATE TABLE from the
// entities, composite keys with @IdClass, a JPA 2.1 @Index, an IDENTITY key and a
// TABLE-generated key with its SEQUENCE table), deployed a second time over the existing
// schema; persist, find by composite key, JPQL with parameters, a JPQL join with
// aggregates and a native one (SUM over INT is DECIMAL), criteria count, bulk update and
// delete counts, PESSIMISTIC_WRITE (FOR UPDATE), rollback and commit seen from another
// connection, and the exception for a duplicate key.
// Connection from COMPAT_HOST, COMPAT_PORT, COMPAT_USER, COMPAT_PASSWORD.

import java.io.Serializable;
import java.math.BigDecimal;
import java.sql.*;
import java.util.*;
import javax.persistence.*;
import javax.persistence.criteria.*;

public class EclipseLinkClient {
    static int passed, failed, xfailed;
    static final String server = env("COMPAT_SERVER", "");
    static final String DB = "compat_eclipselink";

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

    @Entity @Table(name = "customers", indexes = @Index(name = "idx_customers_name", columnList = "name")) @IdClass(CustomerId.class)
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

    @Entity @Table(name = "events")
    public static class Event {
        @Id @GeneratedValue(strategy = GenerationType.IDENTITY) public Long id;
        @Column(length = 32, nullable = false) public String what;
        public Event() {}
        Event(String w) { what = w; }
    }

    @Entity @Table(name = "tickets")
    public static class Ticket {
        @Id @GeneratedValue(strategy = GenerationType.TABLE) public Long id;
        @Column(length = 32) public String what;
        public Ticket() {}
        Ticket(String w) { what = w; }
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
            if (b.length() > 1500) break;
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
    static Connection jdbc(String db) throws SQLException {
        return DriverManager.getConnection(url(db), env("COMPAT_USER", "root"), env("COMPAT_PASSWORD", ""));
    }

    static EntityManagerFactory emf(String log) {
        Map<String, String> p = new HashMap<>();
        p.put("javax.persistence.jdbc.driver", "org.mariadb.jdbc.Driver");
        p.put("javax.persistence.jdbc.url", url(DB));
        p.put("javax.persistence.jdbc.user", env("COMPAT_USER", "root"));
        p.put("javax.persistence.jdbc.password", env("COMPAT_PASSWORD", ""));
        p.put("eclipselink.target-database", "MySQL");
        p.put("eclipselink.ddl-generation", "create-or-extend-tables");
        p.put("eclipselink.ddl-generation.output-mode", "database");
        p.put("eclipselink.weaving", "false");
        p.put("eclipselink.logging.level", "WARNING");
        p.put("eclipselink.logging.level.sql", "FINE");
        p.put("eclipselink.logging.file", log);
        return Persistence.createEntityManagerFactory("compat", p);
    }

    public static void main(String[] args) {
        try { body(); } catch (Throwable e) { fail("script aborted", err(e)); }
        System.out.println(passed + " passed, " + failed + " failed, " + xfailed + " skipped");
        System.exit(failed == 0 ? 0 : 1);
    }

    static void body() throws Exception {
        try (Connection a = jdbc(""); Statement s = a.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DB);
            s.execute("CREATE DATABASE " + DB);
            ok("create database");
        }
        java.io.File log = java.io.File.createTempFile("compat-eclipselink", ".log");
        log.deleteOnExit();
        EntityManagerFactory f = emf(log.getPath());
        EntityManager em = f.createEntityManager(); // deploys: create-or-extend-tables runs here
        String ddlLog = new String(java.nio.file.Files.readAllBytes(log.toPath()));
        try (Connection c = jdbc(DB)) {
            List<String> t = new ArrayList<>();
            ResultSet rs = c.getMetaData().getTables(DB, null, "%", new String[] {"TABLE"});
            while (rs.next()) t.add(rs.getString("TABLE_NAME").toLowerCase());
            Collections.sort(t);
            eq("create-or-extend-tables created the tables (and the SEQUENCE table)", Arrays.asList("customers", "events", "orders", "sequence", "tickets"), t);
            List<String> pk = new ArrayList<>();
            rs = c.getMetaData().getPrimaryKeys(DB, null, "orders");
            while (rs.next()) pk.add(rs.getString("COLUMN_NAME").toLowerCase());
            Collections.sort(pk); // (EclipseLink chooses the key's column order)
            eq("composite primary key of orders", Arrays.asList("customer_id", "order_no", "region"), pk);
            boolean idx = false;
            rs = c.getMetaData().getIndexInfo(DB, null, "customers", false, false);
            while (rs.next()) idx |= "idx_customers_name".equalsIgnoreCase(rs.getString("INDEX_NAME"));
            if (idx) ok("@Index created the secondary index");
            else if (server.equals("sqlgw") && ddlLog.matches("(?s).*(1235|not (yet )?supported).*")) {
                xfailed++;
                System.out.println("XFAIL @Index created the secondary index (secondary indexes not supported yet)");
            } else fail("@Index created the secondary index", "no index; DDL log: " + ddlLog.replace('\n', ' ').substring(0, Math.min(800, ddlLog.length())));
        }

        eqf("persist rows (quotes, NULL) in a transaction", 7L, () -> {
            em.getTransaction().begin();
            em.persist(new Customer("eu", 1, "O'Brien", "it's fragile"));
            em.persist(new Customer("eu", 2, "Smith", null));
            em.persist(new Customer("us", 1, "Jones", "plain"));
            em.persist(new Order("eu", 1, 1, 10, "1.50"));
            em.persist(new Order("eu", 1, 2, 20, "2.25"));
            em.persist(new Order("eu", 2, 1, 5, null));
            em.persist(new Order("us", 1, 1, 7, "3.00"));
            em.getTransaction().commit();
            em.clear();
            return em.createQuery("SELECT COUNT(c) FROM EclipseLinkClient$Customer c", Long.class).getSingleResult()
                + em.createQuery("SELECT COUNT(o) FROM EclipseLinkClient$Order o", Long.class).getSingleResult();
        });
        eqf("find by composite key with quotes", "O'Brien|it's fragile", () -> {
            Customer c = em.find(Customer.class, new CustomerId("eu", 1));
            return c.name + "|" + c.note;
        });
        eqf("read NULL by key", null, () -> em.find(Customer.class, new CustomerId("eu", 2)).note);
        eqf("find a missing key is null", null, () -> em.find(Customer.class, new CustomerId("eu", 99)));
        eqf("JPQL with a parameter on the indexed column", Arrays.asList("eu:1"), () -> {
            List<String> out = new ArrayList<>();
            for (Customer c : em.createQuery("SELECT c FROM EclipseLinkClient$Customer c WHERE c.name = :n", Customer.class)
                    .setParameter("n", "O'Brien").getResultList()) out.add(c.region + ":" + c.id);
            return out;
        });
        eqf("JPQL join with COUNT and SUM", "[O'Brien, 2, 30, 3.75] [Smith, 1, 5, null] [Jones, 1, 7, 3.00]", () -> {
            StringBuilder b = new StringBuilder();
            for (Object[] r : em.createQuery("SELECT c.name, COUNT(o), SUM(o.qty), SUM(o.price) FROM EclipseLinkClient$Customer c, EclipseLinkClient$Order o "
                    + "WHERE o.region = c.region AND o.customerId = c.id GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id", Object[].class).getResultList())
                b.append(b.length() > 0 ? " " : "").append(Arrays.toString(r));
            return b.toString();
        });
        eqf("native SUM(INT) is BigDecimal", "BigDecimal 30", () -> {
            Object v = em.createNativeQuery("SELECT SUM(qty) FROM orders WHERE region = ? AND customer_id = ?")
                .setParameter(1, "eu").setParameter(2, 1).getSingleResult();
            return v.getClass().getSimpleName() + " " + v;
        });
        eqf("criteria count", 3L, () -> {
            CriteriaBuilder cb = em.getCriteriaBuilder();
            CriteriaQuery<Long> q = cb.createQuery(Long.class);
            Root<Customer> r = q.from(Customer.class);
            q.select(cb.count(r));
            return em.createQuery(q).getSingleResult();
        });
        eqf("bulk update and delete counts", "2 2", () -> {
            em.getTransaction().begin();
            int u = em.createQuery("UPDATE EclipseLinkClient$Customer c SET c.note = :n WHERE c.region = :r")
                .setParameter("n", "updated").setParameter("r", "eu").executeUpdate();
            int d = em.createQuery("DELETE FROM EclipseLinkClient$Order o WHERE o.region = :r AND o.customerId = :c")
                .setParameter("r", "eu").setParameter("c", 1).executeUpdate();
            em.getTransaction().commit();
            em.clear();
            return u + " " + d;
        });
        eqf("IDENTITY and TABLE-generated keys", "true true", () -> {
            em.getTransaction().begin();
            Event e1 = new Event("first"), e2 = new Event("second");
            Ticket t1 = new Ticket("a"), t2 = new Ticket("b");
            em.persist(e1); em.persist(e2); em.persist(t1); em.persist(t2);
            em.getTransaction().commit();
            return (e1.id != null && e2.id != null && e1.id > 0 && e2.id > 0 && !e1.id.equals(e2.id)) + " " + (t1.id != null && t2.id != null && !t1.id.equals(t2.id));
        });

        try (Connection other = jdbc(DB); Statement os = other.createStatement()) {
            Body countAp = () -> { ResultSet rs = os.executeQuery("SELECT COUNT(*) FROM customers WHERE region = 'ap'"); rs.next(); return rs.getInt(1); };
            eqf("rollback: the insert was sent but is invisible, then gone", "0 0", () -> {
                em.getTransaction().begin();
                em.persist(new Customer("ap", 1, "Rolled", null));
                em.flush();
                Object seen = countAp.run();
                em.getTransaction().rollback();
                em.clear();
                return seen + " " + countAp.run();
            });
            eqf("commit keeps the insert", 1, () -> {
                em.getTransaction().begin();
                em.persist(new Customer("ap", 2, "Kept", "it's kept"));
                em.getTransaction().commit();
                return countAp.run();
            });
        }
        eqf("PESSIMISTIC_WRITE (SELECT ... FOR UPDATE)", "Smith", () -> {
            em.getTransaction().begin();
            Customer c = em.find(Customer.class, new CustomerId("eu", 2), LockModeType.PESSIMISTIC_WRITE);
            em.getTransaction().commit();
            return c.name;
        });
        eqf("duplicate key is a PersistenceException over SQLIntegrityConstraintViolationException", true, () -> {
            EntityManager e2 = f.createEntityManager();
            try {
                e2.getTransaction().begin();
                e2.persist(new Customer("eu", 2, "Dup", null));
                e2.getTransaction().commit();
                return false;
            } catch (PersistenceException e) {
                for (Throwable t = e; t != null; t = t.getCause())
                    if (t instanceof SQLIntegrityConstraintViolationException) return true;
                throw e;
            } finally {
                if (e2.getTransaction().isActive()) e2.getTransaction().rollback();
                e2.close();
            }
        });
        em.close();
        f.close();

        eqf("deploy again over the existing schema (create-or-extend-tables), rows kept", 4L, () -> {
            EntityManagerFactory f2 = emf(log.getPath());
            EntityManager e2 = f2.createEntityManager();
            try {
                return e2.createQuery("SELECT COUNT(c) FROM EclipseLinkClient$Customer c", Long.class).getSingleResult();
            } finally {
                e2.close();
                f2.close();
            }
        });
    }
}
