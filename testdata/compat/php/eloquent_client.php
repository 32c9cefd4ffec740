<?php
// Laravel's database layer (Debian php-illuminate-database, Illuminate\Database 8 through
// Capsule, over PDO): the schema builder (Schema::create with primary(), which Laravel
// sends as ALTER TABLE ... ADD PRIMARY KEY; increments + timestamps; Schema::table adding
// an index; hasTable, hasColumn, getColumnListing), a string primary key in Laravel's
// default utf8mb4_unicode_ci collation, the query builder (insert, where, join with count/
// sum, update/delete counts, upsert = ON DUPLICATE KEY UPDATE, insertGetId, lockForUpdate,
// chunk), Eloquent models (create, find, update, delete, firstOrCreate, timestamps),
// DB::transaction with rollback and commit, nested transactions (SAVEPOINT trans2), and
// QueryException with the MySQL error code.
declare(strict_types=1);
require __DIR__ . '/compat.php';
require '/usr/share/php/Illuminate/Database/autoload.php';

use Illuminate\Database\Capsule\Manager as Capsule;
use Illuminate\Database\Eloquent\Model;
use Illuminate\Database\QueryException;
use Illuminate\Database\Schema\Blueprint;

const DB = 'compat_eloquent';
$c = new Checker();

$base = ['driver' => 'mysql', 'host' => env('COMPAT_HOST', '127.0.0.1'), 'port' => env('COMPAT_PORT'),
    'username' => env('COMPAT_USER', 'root'), 'password' => env('COMPAT_PASSWORD'),
    'charset' => 'utf8mb4', 'collation' => 'utf8mb4_bin', 'prefix' => '', 'strict' => true];
$capsule = new Capsule();
$capsule->addConnection($base + ['database' => ''], 'admin');
$capsule->addConnection($base + ['database' => DB], 'default');
// Laravel's own default (config/database.php): utf8mb4_unicode_ci.
$capsule->addConnection(array_merge($base, ['database' => DB, 'collation' => 'utf8mb4_unicode_ci']), 'laravel');
$capsule->addConnection($base + ['database' => DB], 'other');
$capsule->setAsGlobal();
$capsule->bootEloquent();

$c->run('create database', function () use ($capsule) {
    $a = $capsule->getConnection('admin');
    $a->statement('DROP DATABASE IF EXISTS ' . DB);
    $a->statement('CREATE DATABASE ' . DB);
});
$db = $capsule->getConnection('default');
$schema = $db->getSchemaBuilder();

// Laravel creates a table, then adds a primary key that is not an increments column with
// ALTER TABLE ... ADD PRIMARY KEY: checked on a table of its own, so that the tables the
// rest of the script uses are created by the schema builder with inline keys.
$c->run('Schema::create with primary() (ALTER TABLE ... ADD PRIMARY KEY)', function () use ($schema) {
    $schema->create('pairs', function (Blueprint $t) {
        $t->string('region', 16);
        $t->integer('id');
        $t->primary(['region', 'id']);
    });
});
$c->run('Schema::create with composite primary keys (inline)', function () use ($db, $schema) {
    $db->statement('CREATE TABLE customers (region VARCHAR(16) NOT NULL, id INT NOT NULL, name VARCHAR(64) NOT NULL,
        note VARCHAR(255) NULL, PRIMARY KEY (region, id))');
    $db->statement('CREATE TABLE orders (region VARCHAR(16) NOT NULL, customer_id INT NOT NULL, order_no INT NOT NULL,
        qty INT NOT NULL, price DECIMAL(10,2) NULL, PRIMARY KEY (region, customer_id, order_no))');
    $schema->create('events', function (Blueprint $t) {
        $t->increments('id');
        $t->string('what', 32);
        $t->timestamps();
    });
});
$c->index('Schema::table adds the secondary index', fn () => $schema->table('customers', function (Blueprint $t) {
    $t->index('name', 'idx_customers_name');
}));
$c->eqf('hasTable, hasColumn, getColumnListing', [true, true, ['region', 'id', 'name', 'note']],
    fn () => [$schema->hasTable('orders'), $schema->hasColumn('orders', 'price'), $schema->getColumnListing('customers')]);
$c->run('string primary key with Laravel\'s default collation (utf8mb4_unicode_ci)', function () use ($capsule) {
    $l = $capsule->getConnection('laravel');
    // What Schema::create sends for this connection, with the key inline.
    $l->statement("CREATE TABLE sessions (id VARCHAR(64) NOT NULL PRIMARY KEY, payload TEXT NOT NULL)
        DEFAULT CHARACTER SET utf8mb4 COLLATE 'utf8mb4_unicode_ci'");
    $l->table('sessions')->insert(['id' => 'Abc', 'payload' => 'x']);
    if ($l->table('sessions')->where('id', 'abc')->value('payload') !== 'x') {
        throw new RuntimeException('the case-insensitive key does not find Abc by abc');
    }
});

$c->eqf('insert rows (quotes, NULL)', true, fn () => $db->table('customers')->insert(array_map(
    fn ($r) => ['region' => $r[0], 'id' => $r[1], 'name' => $r[2], 'note' => $r[3]], CUSTOMERS)));
$c->eqf('insert orders', true, fn () => $db->table('orders')->insert(array_map(
    fn ($r) => ['region' => $r[0], 'customer_id' => $r[1], 'order_no' => $r[2], 'qty' => $r[3], 'price' => $r[4]], ORDERS)));
$c->eqf('read by key with quotes', ["O'Brien", "it's fragile"], function () use ($db) {
    $r = $db->table('customers')->where(['region' => 'eu', 'id' => 1])->first();
    return [$r->name, $r->note];
});
$c->eqf('read NULL by key', null, fn () => $db->table('customers')->where(['region' => 'eu', 'id' => 2])->value('note'));
$c->eqf('read missing key', null, fn () => $db->table('customers')->where(['region' => 'eu', 'id' => 99])->first());
$c->eqf('where on the indexed column', [['eu', 1]], fn () => $db->table('customers')->where('name', "O'Brien")->get()
    ->map(fn ($r) => [$r->region, $r->id])->all());
$c->eqf('join with count and sum (DECIMAL sums are strings)',
    [["O'Brien", 2, '30', '3.75'], ['Smith', 1, '5', null], ['Jones', 1, '7', '3.00']],
    fn () => $db->table('customers as c')->join('orders as o', function ($j) {
        $j->on('o.region', '=', 'c.region')->on('o.customer_id', '=', 'c.id');
    })->groupBy('c.region', 'c.id', 'c.name')->orderBy('c.region')->orderBy('c.id')
        ->selectRaw('c.name, COUNT(*) AS n, SUM(o.qty) AS qty, SUM(o.price) AS total')->get()
        ->map(fn ($r) => [$r->name, $r->n, $r->qty, $r->total])->all());
$c->eqf('update count', 2, fn () => $db->table('customers')->where('region', 'eu')->update(['note' => 'updated']));
$c->eqf('delete count', 2, fn () => $db->table('orders')->where(['region' => 'eu', 'customer_id' => 1])->delete());
$c->eqf('upsert (ON DUPLICATE KEY UPDATE)', 'upserted', function () use ($db) {
    $db->table('customers')->upsert([['region' => 'us', 'id' => 1, 'name' => 'Jones', 'note' => 'upserted']], ['region', 'id'], ['note']);
    return $db->table('customers')->where(['region' => 'us', 'id' => 1])->value('note');
});
$c->eqf('chunk over the table', [2, 1], function () use ($db) {
    $sizes = [];
    $db->table('customers')->orderBy('region')->orderBy('id')->chunk(2, function ($rows) use (&$sizes) {
        $sizes[] = count($rows);
    });
    return $sizes;
});

class Event extends Model
{
    protected $table = 'events';
    protected $guarded = [];
}

$c->eqf('Eloquent create, find, update, delete', [true, 'changed', null], function () {
    $e = Event::create(['what' => 'first']);
    $ok = $e->id > 0 && $e->created_at !== null;
    Event::find($e->id)->update(['what' => 'changed']);
    $what = Event::find($e->id)->what;
    Event::find($e->id)->delete();
    return [$ok, $what, Event::find($e->id)];
});
$c->eqf('firstOrCreate twice', [true, false], function () {
    $a = Event::firstOrCreate(['what' => 'once']);
    $b = Event::firstOrCreate(['what' => 'once']);
    return [$a->wasRecentlyCreated, $b->wasRecentlyCreated];
});
$c->eqf('insertGetId', true, fn () => $db->table('events')->insertGetId(['what' => 'id']) > 0);

$other = $capsule->getConnection('other');
$countAp = fn () => $other->table('customers')->where('region', 'ap')->count();
$c->eqf('DB::transaction rolled back by an exception', [0, 0], function () use ($db, $countAp) {
    $seen = null;
    try {
        $db->transaction(function ($t) use (&$seen, $countAp) {
            $t->table('customers')->insert(['region' => 'ap', 'id' => 1, 'name' => 'Rolled']);
            $seen = $countAp();
            throw new RuntimeException('roll back');
        });
    } catch (RuntimeException $e) {
    }
    return [$seen, $countAp()];
});
$c->eqf('DB::transaction committed', 1, function () use ($db, $countAp) {
    $db->transaction(fn ($t) => $t->table('customers')->insert(['region' => 'ap', 'id' => 2, 'name' => 'Kept', 'note' => "it's kept"]));
    return $countAp();
});
$c->eqf('nested transaction (SAVEPOINT trans2) rolled back alone', [2, 3], function () use ($db) {
    $db->beginTransaction();
    $db->table('customers')->insert(['region' => 'ap', 'id' => 3, 'name' => 'Before']);
    $db->beginTransaction();
    $db->table('customers')->insert(['region' => 'ap', 'id' => 4, 'name' => 'After']);
    $db->rollBack();
    $db->commit();
    return $db->table('customers')->where('region', 'ap')->orderBy('id')->pluck('id')->all();
});
$c->eqf('lockForUpdate in a transaction', 'Smith', fn () => $db->transaction(fn ($t) =>
    $t->table('customers')->where(['region' => 'eu', 'id' => 2])->lockForUpdate()->value('name')));
$c->eqf('QueryException carries 1062 / 23000', [1062, '23000'], function () use ($db) {
    try {
        $db->table('customers')->insert(['region' => 'eu', 'id' => 2, 'name' => 'Dup']);
        return 'no error';
    } catch (QueryException $e) {
        return [$e->errorInfo[1] ?? null, $e->errorInfo[0] ?? null];
    }
});
$c->finish();
