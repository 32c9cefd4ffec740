<?php
// mysqli (Debian php-mysql, mysqlnd): text queries with real_escape_string, prepared
// statements over the binary protocol (bind_param/bind_result/get_result, param_count,
// result_metadata), COM_STMT_SEND_LONG_DATA for a blob, a read-only server-side cursor
// (COM_STMT_FETCH), affected_rows and the UPDATE info string, insert_id,
// begin_transaction/savepoint/release_savepoint/rollback/commit seen from a second
// connection, multi_query, unbuffered results, field types (SUM over INT is NEWDECIMAL),
// error codes and SQLSTATEs, and the other commands mysqli sends: COM_PING,
// COM_STATISTICS, COM_INIT_DB (select_db), COM_CHANGE_USER, an async query.
declare(strict_types=1);
require __DIR__ . '/compat.php';

const DB = 'compat_mysqli';
$c = new Checker();
mysqli_report(MYSQLI_REPORT_ERROR | MYSQLI_REPORT_STRICT);

function connect(?string $db = DB, int $flags = 0): mysqli
{
    $m = mysqli_init();
    $m->real_connect(env('COMPAT_HOST', '127.0.0.1'), env('COMPAT_USER', 'root'), env('COMPAT_PASSWORD'), $db,
        (int) env('COMPAT_PORT'), null, $flags);
    $m->set_charset('utf8mb4');
    return $m;
}

$admin = connect(null);
$c->run('create database', fn () => [$admin->query('DROP DATABASE IF EXISTS ' . DB), $admin->query('CREATE DATABASE ' . DB)]);
$c->run('select_db (COM_INIT_DB)', fn () => $admin->select_db(DB));
$c->eqf('DATABASE() after select_db', DB, fn () => $admin->query('SELECT DATABASE()')->fetch_row()[0]);
$admin->close();

$db = connect();
$c->run('create tables (composite primary keys)', fn () => [
    $db->query('CREATE TABLE customers (region VARCHAR(16) NOT NULL, id INT NOT NULL,
        name VARCHAR(64) NOT NULL, note VARCHAR(255) NULL, PRIMARY KEY (region, id))'),
    $db->query('CREATE TABLE orders (region VARCHAR(16) NOT NULL, customer_id INT NOT NULL,
        order_no INT NOT NULL, qty INT NOT NULL, price DECIMAL(10,2) NULL,
        PRIMARY KEY (region, customer_id, order_no))'),
    $db->query('CREATE TABLE files (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, name VARCHAR(32) NOT NULL, body LONGBLOB)'),
]);
$c->index('create secondary index', fn () => $db->query('CREATE INDEX idx_customers_name ON customers (name)'));

$c->eqf('insert with real_escape_string (text protocol, NULL, quotes)', 3, function () use ($db) {
    $n = 0;
    foreach (CUSTOMERS as [$r, $i, $name, $note]) {
        $db->query(sprintf("INSERT INTO customers (region, id, name, note) VALUES ('%s', %d, '%s', %s)",
            $db->real_escape_string($r), $i, $db->real_escape_string($name),
            $note === null ? 'NULL' : "'" . $db->real_escape_string($note) . "'"));
        $n += $db->affected_rows;
    }
    return $n;
});
$c->eqf('insert with bind_param (binary protocol, NULL)', [5, 4], function () use ($db) {
    $st = $db->prepare('INSERT INTO orders VALUES (?, ?, ?, ?, ?)');
    $n = 0;
    $r = $cid = $no = $qty = $price = null;
    $st->bind_param('siiis', $r, $cid, $no, $qty, $price);
    foreach (ORDERS as [$r, $cid, $no, $qty, $price]) {
        $st->execute();
        $n += $st->affected_rows;
    }
    return [$st->param_count, $n];
});

$sel = function (string $sql, string $types, ...$args) use ($db) {
    $st = $db->prepare($sql);
    if ($types !== '') {
        $st->bind_param($types, ...$args);
    }
    $st->execute();
    return $st->get_result()->fetch_all(MYSQLI_NUM);
};
$c->eqf('read by key with quotes (get_result)', [["O'Brien", "it's fragile"]],
    fn () => $sel('SELECT name, note FROM customers WHERE region = ? AND id = ?', 'si', 'eu', 1));
$c->eqf('read NULL by key', [['Smith', null]], fn () => $sel('SELECT name, note FROM customers WHERE region = ? AND id = ?', 'si', 'eu', 2));
$c->eqf('read by secondary-index column (text)', [['eu', '1']],
    fn () => $db->query("SELECT region, id FROM customers WHERE name = 'O\\'Brien'")->fetch_all(MYSQLI_NUM));
$c->eqf('read missing key', [], fn () => $sel('SELECT name FROM customers WHERE region = ? AND id = ?', 'si', 'eu', 99));
$join = 'SELECT c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total
    FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id
    GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id';
$c->eqf('join with aggregate (binary: ints typed, DECIMAL strings)',
    [["O'Brien", 2, '30', '3.75'], ['Smith', 1, '5', null], ['Jones', 1, '7', '3.00']], fn () => $sel($join, ''));
$c->eqf('join with aggregate (text, MYSQLI_OPT_INT_AND_FLOAT_NATIVE off: strings)',
    [["O'Brien", '2', '30', '3.75'], ['Smith', '1', '5', null], ['Jones', '1', '7', '3.00']],
    fn () => $db->query($join)->fetch_all(MYSQLI_NUM));
$c->eqf('field types: SUM(INT) NEWDECIMAL (246), COUNT LONGLONG (8), DECIMAL scale 2', [246, 8, 246, 2],
    function () use ($db) {
        $f = $db->query('SELECT SUM(qty), COUNT(*), SUM(price) FROM orders')->fetch_fields();
        return [$f[0]->type, $f[1]->type, $f[2]->type, $f[2]->decimals];
    });
$c->eqf('result_metadata of a prepared SELECT', ['name', 'note'], function () use ($db) {
    $st = $db->prepare('SELECT name, note FROM customers WHERE region = ?');
    return array_map(fn ($f) => $f->name, $st->result_metadata()->fetch_fields());
});
$c->eqf('bind_result / fetch, statement re-executed', [3, 1, 1], function () use ($db) {
    $st = $db->prepare('SELECT COUNT(*) FROM orders WHERE region = ? AND qty > ?');
    $r = '';
    $q = 0;
    $out = [];
    $st->bind_param('si', $r, $q);
    foreach ([['eu', 0], ['eu', 10], ['us', 0]] as [$r, $q]) {
        $st->execute();
        $st->bind_result($n);
        $st->fetch();
        $out[] = $n;
        $st->free_result();
    }
    return $out;
});
$c->eqf('read-only cursor (COM_STMT_FETCH, 1 row per fetch)', [['eu', 1], ['eu', 2], ['us', 1]], function () use ($db) {
    $st = $db->prepare('SELECT region, id FROM customers ORDER BY region, id');
    $st->attr_set(MYSQLI_STMT_ATTR_CURSOR_TYPE, MYSQLI_CURSOR_TYPE_READ_ONLY);
    $st->attr_set(MYSQLI_STMT_ATTR_PREFETCH_ROWS, 1);
    $st->execute();
    $st->bind_result($r, $i);
    $out = [];
    while ($st->fetch()) {
        $out[] = [$r, $i];
    }
    $st->close();
    return $out;
});

$big = str_repeat("blob\x00\xff'\\", 40000); // 320 KB in 4 chunks of COM_STMT_SEND_LONG_DATA
$c->eqf('send_long_data (COM_STMT_SEND_LONG_DATA) and read back', [1, strlen($big), md5($big)], function () use ($db, $big) {
    $st = $db->prepare('INSERT INTO files (name, body) VALUES (?, ?)');
    $name = 'big';
    $null = null;
    $st->bind_param('sb', $name, $null);
    foreach (str_split($big, 80000) as $chunk) {
        $st->send_long_data(1, $chunk);
    }
    $st->execute();
    $id = $st->insert_id;
    $row = $db->query("SELECT LENGTH(body), body FROM files WHERE id = $id")->fetch_row();
    return [$id, (int) $row[0], md5($row[1])];
});

$c->eqf('update affected_rows and info string', [2, 'Rows matched: 2  Changed: 2  Warnings: 0'], function () use ($db) {
    $db->query("UPDATE customers SET note = 'updated' WHERE region = 'eu'");
    return [$db->affected_rows, $db->info];
});
$c->eqf('update with no change affects 0 rows', 0, function () use ($db) {
    $st = $db->prepare('UPDATE customers SET note = ? WHERE region = ? AND id = ?');
    $note = 'updated';
    $r = 'eu';
    $i = 1;
    $st->bind_param('ssi', $note, $r, $i);
    $st->execute();
    return $st->affected_rows;
});
$found = connect(DB, MYSQLI_CLIENT_FOUND_ROWS);
$c->eqf('update with no change matches 1 with CLIENT_FOUND_ROWS', 1, function () use ($found) {
    $found->query("UPDATE customers SET note = 'updated' WHERE region = 'eu' AND id = 1");
    return $found->affected_rows;
});
$c->eqf('delete affected_rows (prepared)', 2, function () use ($db) {
    $st = $db->prepare('DELETE FROM orders WHERE region = ? AND customer_id = ?');
    $r = 'eu';
    $i = 1;
    $st->bind_param('si', $r, $i);
    $st->execute();
    return $st->affected_rows;
});
$c->eqf('multi-row INSERT info string', [2, 'Records: 2  Duplicates: 0  Warnings: 0'], function () use ($db) {
    $db->query("INSERT INTO orders VALUES ('ap', 9, 1, 1, NULL), ('ap', 9, 2, 2, NULL)");
    return [$db->affected_rows, $db->info];
});
$c->eqf('insert_id of a text INSERT', 2, function () use ($db) {
    $db->query("INSERT INTO files (name) VALUES ('small')");
    return $db->insert_id;
});

$other = connect();
$countAp = fn () => (int) $other->query("SELECT COUNT(*) FROM customers WHERE region = 'ap'")->fetch_row()[0];
$c->run('begin_transaction', fn () => $db->begin_transaction());
$db->query("INSERT INTO customers VALUES ('ap', 1, 'Rolled', NULL)");
$c->eq('uncommitted insert invisible to another connection', 0, $countAp());
$c->run('rollback', fn () => $db->rollback());
$c->eq('rollback discards the insert', 0, $countAp());
$db->begin_transaction(MYSQLI_TRANS_START_READ_WRITE);
$db->query("INSERT INTO customers VALUES ('ap', 2, 'Kept', 'it''s kept')");
$c->run('commit', fn () => $db->commit());
$c->eq('commit keeps the insert', 1, $countAp());
$c->run('autocommit(false)', fn () => $db->autocommit(false));
$db->query("INSERT INTO customers VALUES ('ap', 3, 'Before', NULL)");
$c->run('savepoint()', fn () => $db->savepoint('sp1'));
$db->query("INSERT INTO customers VALUES ('ap', 4, 'After', NULL)");
$c->run('ROLLBACK TO SAVEPOINT', fn () => $db->query('ROLLBACK TO SAVEPOINT sp1'));
$c->run('release_savepoint()', fn () => $db->release_savepoint('sp1'));
$c->eq('autocommit off: insert not yet visible', 0, (int) $other->query("SELECT COUNT(*) FROM customers WHERE region = 'ap' AND id = 3")->fetch_row()[0]);
$db->commit();
$db->autocommit(true);
$c->eqf('savepoint rolled back only the later insert', [['2'], ['3']],
    fn () => $other->query("SELECT id FROM customers WHERE region = 'ap' ORDER BY id")->fetch_all(MYSQLI_NUM));
$c->run('read-only transaction', function () use ($db) {
    $db->begin_transaction(MYSQLI_TRANS_START_READ_ONLY);
    $db->query('SELECT COUNT(*) FROM customers')->fetch_all();
    $db->commit();
});

$c->eqf('multi_query: three result sets and an UPDATE count', [[['1']], [['2'], ['3']], 1, [['ok']]], function () use ($db) {
    $db->multi_query("SELECT 1; SELECT 2 UNION ALL SELECT 3; UPDATE customers SET note = 'multi' WHERE region = 'us' AND id = 1; SELECT 'ok'");
    $out = [];
    do {
        $res = $db->store_result();
        $out[] = $res === false ? $db->affected_rows : $res->fetch_all(MYSQLI_NUM);
    } while ($db->more_results() && $db->next_result());
    return $out;
});
$c->eqf('unbuffered result (use_result)', 5, function () use ($db) {
    $db->real_query('SELECT * FROM customers');
    $res = $db->use_result();
    $n = 0;
    while ($res->fetch_row()) {
        $n++;
    }
    $res->free();
    return $n;
});
$c->eqf('async query (MYSQLI_ASYNC, mysqli_poll, reap_async_query)', [['5']], function () {
    $a = connect();
    $a->query('SELECT COUNT(*) FROM customers', MYSQLI_ASYNC);
    $links = $errors = $reject = [$a];
    if (mysqli_poll($links, $errors, $reject, 5) < 1) {
        throw new RuntimeException('poll: no result in 5 s');
    }
    return $a->reap_async_query()->fetch_all(MYSQLI_NUM);
});

foreach (['text' => fn () => $db->query("INSERT INTO customers VALUES ('eu', 2, 'Dup', NULL)"),
    'prepared' => fn () => $db->prepare("INSERT INTO customers VALUES ('eu', 2, 'Dup', NULL)")->execute()] as $mode => $fn) {
    try {
        $fn();
        $c->fail("duplicate key is 1062 / 23000 ($mode)", 'no error');
    } catch (mysqli_sql_exception $e) {
        $c->eq("duplicate key is 1062 / 23000 ($mode)", [1062, '23000'], [$e->getCode(), $e->getSqlState()]);
    }
}
try {
    $db->query('SELECT * FROM nope');
    $c->fail('missing table is 1146 / 42S02', 'no error');
} catch (mysqli_sql_exception $e) {
    $c->eq('missing table is 1146 / 42S02', [1146, '42S02'], [$e->getCode(), $e->getSqlState()]);
}
$c->eqf('warning_count and get_warnings of CAST', [1, 1292], function () use ($db) {
    $db->query("SELECT CAST('12abc' AS SIGNED)")->fetch_all();
    $n = $db->warning_count;
    $w = $db->get_warnings();
    return [$n, $w ? $w->errno : null];
});
$c->eqf('ping (COM_PING)', true, fn () => $db->ping());
$c->eqf('stat (COM_STATISTICS) starts with Uptime', 1, fn () => preg_match('/^Uptime: \d+/', (string) $db->stat()));
$c->eqf('change_user (COM_CHANGE_USER) resets the session', [DB, null], function () use ($db) {
    $db->query('SET @marker = 1');
    $db->change_user(env('COMPAT_USER', 'root'), env('COMPAT_PASSWORD'), DB);
    return $db->query('SELECT DATABASE(), @marker')->fetch_row();
});
$c->eqf('persistent connection (p:host) is reused and reset (COM_CHANGE_USER)', [true, null], function () {
    $host = 'p:' . env('COMPAT_HOST', '127.0.0.1');
    $a = new mysqli($host, env('COMPAT_USER', 'root'), env('COMPAT_PASSWORD'), DB, (int) env('COMPAT_PORT'));
    $a->query('SET @marker = 1');
    $id = $a->thread_id;
    $a->close();
    $b = new mysqli($host, env('COMPAT_USER', 'root'), env('COMPAT_PASSWORD'), DB, (int) env('COMPAT_PORT'));
    $same = $b->thread_id === $id;
    $m = $b->query('SELECT @marker')->fetch_row()[0];
    $b->close();
    return [$same, $m];
});
$c->eqf('get_server_info / server_version', true, fn () => $db->server_version > 50000 && $db->server_info !== '');
$c->finish();
