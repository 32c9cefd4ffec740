<?php
// PDO_MySQL (Debian php-mysql, mysqlnd): the same statements with emulated prepares
// (PDO's default: placeholders are substituted by the client and sent as text queries)
// and with native prepares (ATTR_EMULATE_PREPARES = false: COM_STMT_PREPARE/EXECUTE,
// binary rows), native result types and column metadata (SUM over INT is NEWDECIMAL),
// rowCount of UPDATE/DELETE, lastInsertId, beginTransaction/rollBack/commit seen from a
// second connection, SAVEPOINT, unbuffered queries, and errorInfo/SQLSTATE of errors.
declare(strict_types=1);
require __DIR__ . '/compat.php';

const DB = 'compat_pdo';
$c = new Checker();

function connect(array $opts = [], string $db = DB): PDO
{
    $dsn = sprintf('mysql:host=%s;port=%s;charset=utf8mb4%s', env('COMPAT_HOST', '127.0.0.1'), env('COMPAT_PORT'),
        $db === '' ? '' : ";dbname=$db");
    return new PDO($dsn, env('COMPAT_USER', 'root'), env('COMPAT_PASSWORD'),
        $opts + [PDO::ATTR_ERRMODE => PDO::ERRMODE_EXCEPTION, PDO::ATTR_DEFAULT_FETCH_MODE => PDO::FETCH_NUM]);
}

$admin = connect([], '');
$c->run('create database', fn () => [$admin->exec('DROP DATABASE IF EXISTS ' . DB), $admin->exec('CREATE DATABASE ' . DB)]);
$admin = null;

$db = connect();
$c->run('create tables (composite primary keys)', fn () => [
    $db->exec('CREATE TABLE customers (region VARCHAR(16) NOT NULL, id INT NOT NULL,
        name VARCHAR(64) NOT NULL, note VARCHAR(255) NULL, PRIMARY KEY (region, id))'),
    $db->exec('CREATE TABLE orders (region VARCHAR(16) NOT NULL, customer_id INT NOT NULL,
        order_no INT NOT NULL, qty INT NOT NULL, price DECIMAL(10,2) NULL,
        PRIMARY KEY (region, customer_id, order_no))'),
    $db->exec('CREATE TABLE events (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, what VARCHAR(32) NOT NULL)'),
]);
$c->index('create secondary index', fn () => $db->exec('CREATE INDEX idx_customers_name ON customers (name)'));

$c->eqf('insert with emulated prepares (bindValue types, NULL, quotes)', 3, function () use ($db) {
    $st = $db->prepare('INSERT INTO customers (region, id, name, note) VALUES (:region, :id, :name, :note)');
    $n = 0;
    foreach (CUSTOMERS as [$r, $i, $name, $note]) {
        $st->bindValue(':region', $r);
        $st->bindValue(':id', $i, PDO::PARAM_INT);
        $st->bindValue(':name', $name);
        $st->bindValue(':note', $note, $note === null ? PDO::PARAM_NULL : PDO::PARAM_STR);
        $st->execute();
        $n += $st->rowCount();
    }
    return $n;
});

$native = connect([PDO::ATTR_EMULATE_PREPARES => false]);
$c->eqf('insert with native prepares (COM_STMT_EXECUTE, NULL)', 4, function () use ($native) {
    $st = $native->prepare('INSERT INTO orders VALUES (?, ?, ?, ?, ?)');
    $n = 0;
    foreach (ORDERS as $row) {
        $st->execute($row);
        $n += $st->rowCount();
    }
    return $n;
});

foreach (['emulated' => $db, 'native' => $native] as $mode => $h) {
    $q = function (string $sql, array $args) use ($h) {
        $st = $h->prepare($sql);
        $st->execute($args);
        return $st->fetchAll();
    };
    $c->eqf("read by key with quotes ($mode)", [["O'Brien", "it's fragile"]],
        fn () => $q('SELECT name, note FROM customers WHERE region = ? AND id = ?', ['eu', 1]));
    $c->eqf("read NULL by key ($mode)", [['Smith', null]],
        fn () => $q('SELECT name, note FROM customers WHERE region = ? AND id = ?', ['eu', 2]));
    $c->eqf("read by secondary-index column ($mode)", [['eu', 1]],
        fn () => $q('SELECT region, id FROM customers WHERE name = ?', ["O'Brien"]));
    $c->eqf("read missing key ($mode)", [], fn () => $q('SELECT name FROM customers WHERE region = ? AND id = ?', ['eu', 99]));
    // mysqlnd returns INT and BIGINT as PHP ints in both modes (PHP 8.1+) and DECIMAL as strings.
    $c->eqf("join with aggregate, typed ($mode)",
        [["O'Brien", 2, '30', '3.75'], ['Smith', 1, '5', null], ['Jones', 1, '7', '3.00']],
        fn () => $q('SELECT c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total
            FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id
            WHERE c.region <> ? GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id', ['zz']));
    $c->eqf("column metadata: SUM(INT) is NEWDECIMAL, COUNT is LONGLONG ($mode)", ['NEWDECIMAL', 'LONGLONG'],
        function () use ($h) {
            $st = $h->prepare('SELECT SUM(qty) AS s, COUNT(*) AS n FROM orders WHERE region = ?');
            $st->execute(['eu']);
            $st->fetchAll();
            return [$st->getColumnMeta(0)['native_type'] ?? null, $st->getColumnMeta(1)['native_type'] ?? null];
        });
}

$c->eqf('prepared statement re-executed (native)', [3, 1, 1], function () use ($native) {
    $st = $native->prepare('SELECT COUNT(*) FROM orders WHERE region = ? AND qty > ?');
    $out = [];
    foreach ([['eu', 0], ['eu', 10], ['us', 0]] as $a) {
        $st->execute($a);
        $out[] = $st->fetchColumn();
    }
    return $out;
});

$rowCount = function (PDO $h, string $sql, array $args) {
    $st = $h->prepare($sql);
    $st->execute($args);
    return $st->rowCount();
};
$c->eqf('update rowCount (emulated)', 2, fn () => $rowCount($db, 'UPDATE customers SET note = ? WHERE region = ?', ['updated', 'eu']));
$c->eqf('update with no change: rowCount 0 (no MYSQL_ATTR_FOUND_ROWS)', 0,
    fn () => $rowCount($db, 'UPDATE customers SET note = ? WHERE region = ? AND id = ?', ['updated', 'eu', 1]));
$found = connect([PDO::MYSQL_ATTR_FOUND_ROWS => true]);
$c->eqf('update with no change: rowCount 1 with MYSQL_ATTR_FOUND_ROWS', 1,
    fn () => $rowCount($found, 'UPDATE customers SET note = ? WHERE region = ? AND id = ?', ['updated', 'eu', 1]));
$c->eqf('update rowCount (native)', 1, fn () => $rowCount($native, 'UPDATE orders SET qty = qty + ? WHERE region = ?', [1, 'us']));
$c->eqf('delete rowCount (native)', 2, fn () => $rowCount($native, 'DELETE FROM orders WHERE region = ? AND customer_id = ?', ['eu', 1]));

$c->eqf('lastInsertId after AUTO_INCREMENT inserts', ['1', '2'], function () use ($db, $native) {
    $db->prepare('INSERT INTO events (what) VALUES (?)')->execute(['first']);
    $a = $db->lastInsertId();
    $native->prepare('INSERT INTO events (what) VALUES (?)')->execute(['second']);
    return [$a, $native->lastInsertId()];
});

$other = connect();
$countAp = fn () => (int) $other->query("SELECT COUNT(*) FROM customers WHERE region = 'ap'")->fetchColumn();
$c->run('beginTransaction', fn () => $db->beginTransaction());
$db->exec("INSERT INTO customers VALUES ('ap', 1, 'Rolled', NULL)");
$c->eq('uncommitted insert invisible to another connection', 0, $countAp());
$c->true('inTransaction', $db->inTransaction());
$c->run('rollBack', fn () => $db->rollBack());
$c->eq('rollBack discards the insert', 0, $countAp());
$db->beginTransaction();
$db->prepare('INSERT INTO customers VALUES (?, ?, ?, ?)')->execute(['ap', 2, 'Kept', "it's kept"]);
$c->run('commit', fn () => $db->commit());
$c->eq('commit keeps the insert', 1, $countAp());

$native->beginTransaction();
$native->prepare('INSERT INTO customers VALUES (?, ?, ?, ?)')->execute(['ap', 3, 'Before', null]);
$c->run('SAVEPOINT', fn () => $native->exec('SAVEPOINT sp1'));
$native->prepare('INSERT INTO customers VALUES (?, ?, ?, ?)')->execute(['ap', 4, 'After', null]);
$c->run('ROLLBACK TO SAVEPOINT', fn () => $native->exec('ROLLBACK TO SAVEPOINT sp1'));
$native->commit();
$c->eqf('savepoint rolled back only the later insert', [2, 3],
    fn () => array_map('intval', $other->query("SELECT id FROM customers WHERE region = 'ap' ORDER BY id")->fetchAll(PDO::FETCH_COLUMN)));

$c->eqf('parameter escaping round trip (emulated)', ["it's \\ \"quoted\" \u{e9}", null, '1.10'], function () use ($db) {
    $st = $db->prepare('SELECT ?, ?, CAST(? AS DECIMAL(5,2))');
    $st->execute(["it's \\ \"quoted\" \u{e9}", null, '1.10']);
    return $st->fetch();
});
$c->eqf('parameter round trip (native)', ["it's \\ \"quoted\" \u{e9}", null], function () use ($native) {
    $st = $native->prepare('SELECT ?, ?');
    $st->execute(["it's \\ \"quoted\" \u{e9}", null]);
    return $st->fetch();
});

$unbuf = connect([PDO::MYSQL_ATTR_USE_BUFFERED_QUERY => false]);
$c->eqf('unbuffered query streams rows', 5, function () use ($unbuf) {
    $n = 0;
    foreach ($unbuf->query('SELECT region, id, name FROM customers') as $row) {
        $n++;
    }
    return $n;
});

foreach (['emulated' => $db, 'native' => $native] as $mode => $h) {
    try {
        $h->prepare('INSERT INTO customers VALUES (?, ?, ?, ?)')->execute(['eu', 2, 'Dup', null]);
        $c->fail("duplicate key is SQLSTATE 23000 / 1062 ($mode)", 'no error');
    } catch (PDOException $e) {
        $c->eq("duplicate key is SQLSTATE 23000 / 1062 ($mode)", ['23000', 1062], [$e->errorInfo[0] ?? null, $e->errorInfo[1] ?? null]);
    }
}
try {
    $db->query('SELECT * FROM nope');
    $c->fail('missing table is SQLSTATE 42S02 / 1146', 'no error');
} catch (PDOException $e) {
    $c->eq('missing table is SQLSTATE 42S02 / 1146', ['42S02', 1146], [$e->errorInfo[0] ?? null, $e->errorInfo[1] ?? null]);
}
$c->eqf('multiple statements in one exec (emulated)', 2, function () use ($db) {
    $st = $db->query("SELECT 1; SELECT 2");
    $n = 0;
    do {
        $st->fetchAll();
        $n++;
    } while ($st->nextRowset());
    return $n;
});
$c->eqf('getAttribute(SERVER_VERSION) is a string', true, fn () => is_string($db->getAttribute(PDO::ATTR_SERVER_VERSION)));
$c->finish();
