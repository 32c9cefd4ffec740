<?php
// Doctrine DBAL 3 (Debian php-doctrine-dbal) over pdo_mysql: the schema manager builds the
// schema from a Schema object (composite primary keys, a DECIMAL column, an index, an
// AUTO_INCREMENT key), introspects it back (listTableNames, listTableColumns, indexes,
// table details through information_schema), and the comparator must find no difference
// between the introspected and the wanted schema; then a migration-style change (add a
// column, widen it) computed by the comparator and applied; the connection API with
// parameter types (executeStatement, fetchAllNumeric, insert/update/delete helpers and
// their counts), the query builder, lastInsertId, transactions with rollback, commit and
// nested transactions with savepoints, and UniqueConstraintViolationException.
declare(strict_types=1);
require __DIR__ . '/compat.php';
require '/usr/share/php/Doctrine/DBAL/autoload.php';

use Doctrine\DBAL\DriverManager;
use Doctrine\DBAL\Exception\UniqueConstraintViolationException;
use Doctrine\DBAL\ParameterType;
use Doctrine\DBAL\Schema\Schema;
use Doctrine\DBAL\Schema\SchemaConfig;

const DB = 'compat_doctrine';
$c = new Checker();

function params(?string $db): array
{
    $p = ['driver' => 'pdo_mysql', 'host' => env('COMPAT_HOST', '127.0.0.1'), 'port' => (int) env('COMPAT_PORT'),
        'user' => env('COMPAT_USER', 'root'), 'password' => env('COMPAT_PASSWORD'), 'charset' => 'utf8mb4'];
    if ($db !== null) {
        $p['dbname'] = $db;
    }
    return $p;
}

// wanted builds the schema, the same when creating and when comparing, with utf8mb4_bin
// tables (the collation checks below try DBAL's default and Laravel's).
function wanted(bool $withEmail): Schema
{
    $config = new SchemaConfig();
    $config->setDefaultTableOptions(['charset' => 'utf8mb4', 'collation' => 'utf8mb4_bin']);
    $s = new Schema([], [], $config);
    $t = $s->createTable('customers');
    $t->addColumn('region', 'string', ['length' => 16]);
    $t->addColumn('id', 'integer');
    $t->addColumn('name', 'string', ['length' => 64]);
    $t->addColumn('note', 'string', ['length' => 255, 'notnull' => false]);
    if ($withEmail) {
        $t->addColumn('email', 'string', ['length' => 128, 'notnull' => false]);
    }
    $t->setPrimaryKey(['region', 'id']);
    $t->addIndex(['name'], 'idx_customers_name');
    $o = $s->createTable('orders');
    $o->addColumn('region', 'string', ['length' => 16]);
    $o->addColumn('customer_id', 'integer');
    $o->addColumn('order_no', 'integer');
    $o->addColumn('qty', 'integer');
    $o->addColumn('price', 'decimal', ['precision' => 10, 'scale' => 2, 'notnull' => false]);
    $o->setPrimaryKey(['region', 'customer_id', 'order_no']);
    $e = $s->createTable('events');
    $e->addColumn('id', 'bigint', ['autoincrement' => true]);
    $e->addColumn('what', 'string', ['length' => 32]);
    $e->setPrimaryKey(['id']);
    return $s;
}

$admin = DriverManager::getConnection(params(null));
$c->run('createDatabase', function () use ($admin) {
    $sm = $admin->createSchemaManager();
    if (in_array(DB, $sm->listDatabases(), true)) {
        $sm->dropDatabase(DB);
    }
    $sm->createDatabase(DB);
});
$admin->close();

$db = DriverManager::getConnection(params(DB));
$sm = $db->createSchemaManager();
$platform = $db->getDatabasePlatform();
// A string primary key in DBAL 3's default table collation (utf8 = utf8mb3, utf8_unicode_ci)
// and in utf8mb4_unicode_ci (Laravel's and Symfony's documented default).
foreach (['DBAL default (utf8_unicode_ci)' => [], 'utf8mb4_unicode_ci' => ['charset' => 'utf8mb4', 'collation' => 'utf8mb4_unicode_ci']] as $what => $opts) {
    $c->run("string primary key in a $what table", function () use ($db, $platform, $opts) {
        $config = new SchemaConfig();
        $config->setDefaultTableOptions($opts + $config->getDefaultTableOptions());
        $s = new Schema([], [], $config);
        $t = $s->createTable('collated_' . count($opts));
        $t->addColumn('k', 'string', ['length' => 16]);
        $t->setPrimaryKey(['k']);
        foreach ($s->toSql($platform) as $sql) {
            $db->executeStatement($sql);
        }
        $db->insert('collated_' . count($opts), ['k' => 'Abc']);
        if ($db->fetchOne('SELECT k FROM collated_' . count($opts) . " WHERE k = 'abc'") !== 'Abc') {
            throw new RuntimeException('a case-insensitive key does not find Abc by abc');
        }
        $db->executeStatement('DROP TABLE collated_' . count($opts));
    });
}
$c->run('create the schema from a Schema object (toSql, utf8mb4_bin tables)', function () use ($db, $platform) {
    foreach (wanted(false)->toSql($platform) as $sql) {
        $db->executeStatement($sql);
    }
});
$c->eqf('listTableNames', ['customers', 'events', 'orders'], function () use ($sm) {
    $t = $sm->listTableNames();
    sort($t);
    return $t;
});
$c->eqf('listTableColumns of orders (name, type, notnull, precision/scale)',
    ['region string 1', 'customer_id integer 1', 'order_no integer 1', 'qty integer 1', 'price decimal 0 10/2'],
    fn () => array_values(array_map(fn ($col) => $col->getName() . ' ' . $col->getType()->getName() . ' ' . (int) $col->getNotnull()
        . ($col->getType()->getName() === 'decimal' ? ' ' . $col->getPrecision() . '/' . $col->getScale() : ''),
        $sm->listTableColumns('orders'))));
$c->eqf('listTableIndexes of customers', ['idx_customers_name' => ['name'], 'primary' => ['region', 'id']], function () use ($sm) {
    $out = [];
    foreach ($sm->listTableIndexes('customers') as $name => $ix) {
        $out[$name] = $ix->getColumns();
    }
    ksort($out);
    return $out;
});
$c->eqf('events.id is autoincrement', true, fn () => $sm->listTableColumns('events')['id']->getAutoincrement());
$c->eqf('comparator: no difference between the database and the wanted schema', [], function () use ($sm, $platform) {
    $diff = $sm->createComparator()->compareSchemas($sm->introspectSchema(), wanted(false));
    return $platform->getAlterSchemaSQL($diff);
});
$c->eqf('comparator migration adds a column', 1, function () use ($db, $sm, $platform) {
    $diff = $sm->createComparator()->compareSchemas($sm->introspectSchema(), wanted(true));
    $sqls = $platform->getAlterSchemaSQL($diff);
    foreach ($sqls as $sql) {
        $db->executeStatement($sql);
    }
    return count($sqls);
});
$c->eqf('comparator: no difference after the migration', [], function () use ($sm, $platform) {
    return $platform->getAlterSchemaSQL($sm->createComparator()->compareSchemas($sm->introspectSchema(), wanted(true)));
});

$c->eqf('insert helper with types (quotes, NULL)', 3, function () use ($db) {
    $n = 0;
    foreach (CUSTOMERS as [$r, $i, $name, $note]) {
        $n += $db->insert('customers', ['region' => $r, 'id' => $i, 'name' => $name, 'note' => $note],
            ['region' => ParameterType::STRING, 'id' => ParameterType::INTEGER, 'name' => ParameterType::STRING,
                'note' => $note === null ? ParameterType::NULL : ParameterType::STRING]);
    }
    return $n;
});
$c->eqf('executeStatement multi-row insert', 4, fn () => $db->executeStatement(
    'INSERT INTO orders VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?), (?, ?, ?, ?, ?), (?, ?, ?, ?, ?)', array_merge(...ORDERS)));
$c->eqf('read by key with quotes', [["O'Brien", "it's fragile"]],
    fn () => $db->fetchAllNumeric('SELECT name, note FROM customers WHERE region = ? AND id = ?', ['eu', 1], [ParameterType::STRING, ParameterType::INTEGER]));
$c->eqf('read NULL by key', [['Smith', null]], fn () => $db->fetchAllNumeric('SELECT name, note FROM customers WHERE region = ? AND id = ?', ['eu', 2]));
$c->eqf('read missing key', false, fn () => $db->fetchOne('SELECT name FROM customers WHERE region = ? AND id = ?', ['eu', 99]));
$c->eqf('query builder on the indexed column', [['region' => 'eu', 'id' => 1]], fn () => $db->createQueryBuilder()
    ->select('region', 'id')->from('customers')->where('name = :n')->setParameter('n', "O'Brien")->fetchAllAssociative());
$c->eqf('join with aggregate (DECIMAL sums are strings)',
    [["O'Brien", 2, '30', '3.75'], ['Smith', 1, '5', null], ['Jones', 1, '7', '3.00']],
    fn () => $db->fetchAllNumeric('SELECT c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total
        FROM customers c JOIN orders o ON o.region = c.region AND o.customer_id = c.id
        GROUP BY c.region, c.id, c.name ORDER BY c.region, c.id'));
$c->eqf('update helper count', 2, fn () => $db->update('customers', ['note' => 'updated'], ['region' => 'eu']));
$c->eqf('delete helper count', 2, fn () => $db->delete('orders', ['region' => 'eu', 'customer_id' => 1]));
$c->eqf('lastInsertId', ['1', '2'], function () use ($db) {
    $db->insert('events', ['what' => 'first']);
    $a = (string) $db->lastInsertId();
    $db->insert('events', ['what' => 'second']);
    return [$a, (string) $db->lastInsertId()];
});

$other = DriverManager::getConnection(params(DB));
$countAp = fn () => (int) $other->fetchOne("SELECT COUNT(*) FROM customers WHERE region = 'ap'");
$c->eqf('rollBack: invisible, then gone', [0, 0], function () use ($db, $countAp) {
    $db->beginTransaction();
    $db->insert('customers', ['region' => 'ap', 'id' => 1, 'name' => 'Rolled']);
    $seen = $countAp();
    $db->rollBack();
    return [$seen, $countAp()];
});
$c->eqf('transactional() commits', 1, function () use ($db, $countAp) {
    $db->transactional(fn ($conn) => $conn->insert('customers', ['region' => 'ap', 'id' => 2, 'name' => 'Kept', 'note' => "it's kept"]));
    return $countAp();
});
$c->eqf('nested transaction with savepoints rolled back alone', [2, 3], function () use ($db) {
    $db->setNestTransactionsWithSavepoints(true);
    $db->beginTransaction();
    $db->insert('customers', ['region' => 'ap', 'id' => 3, 'name' => 'Before']);
    $db->beginTransaction();
    $db->insert('customers', ['region' => 'ap', 'id' => 4, 'name' => 'After']);
    $db->rollBack();
    $db->commit();
    return array_map('intval', $db->fetchFirstColumn("SELECT id FROM customers WHERE region = 'ap' ORDER BY id"));
});
$c->eqf('duplicate key is UniqueConstraintViolationException', true, function () use ($db) {
    try {
        $db->insert('customers', ['region' => 'eu', 'id' => 2, 'name' => 'Dup']);
        return false;
    } catch (UniqueConstraintViolationException $e) {
        return true;
    }
});
$c->eqf('server version parsed by the platform', true, fn () => $db->getDatabasePlatform() !== null);
$c->finish();
