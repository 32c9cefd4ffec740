// Package aztables is the storage.Store backend for Azure Table Storage and
// the services that speak its API (Azurite, the Cosmos DB Table API).
//
// # Requests
//
// Every Store method sends the one request the Table service offers for it
// (Get: one point query; Batch: one entity group transaction; DeleteTable:
// one delete; Query: one page), through the aztables SDK, after checking it
// with the storage package's Validate functions, so that the service is never
// asked something the embedded backend would refuse. Get, every point
// read's request, is sent without the SDK's pipeline when the store
// authenticates with a Shared Key or a SAS: the same request, signed as
// the SDK signs it, at a third of the CPU (leanget.go). With the default
// transport and no proxy, that request is also written and its response
// read on the calling goroutine, over the store's own kept-alive HTTP/1.1
// connections, without net/http's connection goroutines (leanconn.go);
// every other request goes through the transport.
//
// # Values
//
// Entities are written as JSON objects built here (map[string]any), never
// with the SDK's EDMEntity, whose MarshalJSON doubles single quotes inside
// values. Every non-String property carries an explicit "@odata.type": a
// whole Double such as 3.0 would otherwise be stored as Int32, and an Int64
// is a JSON string. Responses are decoded from their raw bytes (captured by
// a pipeline policy, see capture.go), not from the SDK's map[string]any:
// that decoding turns 3.0 into 3 and so loses the Double type, which the
// service only conveys by the decimal point of the number. A scanner of
// the service's JSON decodes them (fastjson.go), encoding/json the bodies
// it does not take.
//
// # Filters
//
// Filters are rendered by storage.FormatOData, the one renderer. Key ranges
// become PartitionKey/RowKey comparisons ANDed with the filter. What is
// sent is always implied by the full query, and when it is weaker,
// storage.Eval applies the full filter to the results (properties the
// filter needs are then added to $select and dropped from the results):
//
//   - The service accepts at most 15 comparisons per filter: a longer one is
//     cut to the top-level AND conjuncts that fit (possibly none).
//   - DateTime comparisons are widened to whole milliseconds (Azurite
//     compares DateTimes at millisecond precision); see weaken in query.go.
//   - Comparisons with NaN or infinite Doubles stay local.
//
// $top is never 0 (the SDK would loop forever).
//
// # Paging
//
// Query returns one service page. Its continuation token is "1." followed by
// the base64url (unpadded) encoding of NextPartitionKey, ".", and that of
// NextRowKey: printable, and resumable at any later time.
//
// # Errors and retries
//
// Errors are mapped in one function (mapError, errors.go) to the storage
// sentinels. The SDK's own retry policy is disabled (it stretches Azurite's
// 500s to 8.5 s); this package retries instead, with exponential backoff and
// full jitter, per-attempt timeouts, and the caller's context honoured:
//
//   - Failures where the service certainly did not execute the request
//     (503 ServerBusy, 429, connection refused) are retried for every
//     operation.
//   - Ambiguous failures (500 OperationTimedOut/InternalError, 502, 504, a
//     connection lost mid-request, an attempt timeout) are retried for
//     idempotent operations: Get, Query, ListTables, TableExists, Upsert, and
//     Update with ETagAny (sending them twice has the effect of sending them
//     once).
//   - They are also retried for the conditional ones, Update with an ETag
//     and Delete, which cannot apply twice: a second application fails with
//     412 or 404. A retry that succeeds proves the first attempt did not
//     apply. But a 412 or 404 after an ambiguous failure may be the echo of
//     our own first attempt, so it is reported as ErrUnavailable ("outcome
//     unknown"), never as ErrPreconditionFailed or ErrNotFound: the caller
//     re-reads the entity and decides.
//   - Insert, Batch, CreateTable and DeleteTable are not retried after an
//     ambiguous failure: a retried Insert that did succeed the first time
//     would come back as ErrAlreadyExists, a batch as a failure of one of
//     its operations, and this package cannot tell that echo from a real
//     conflict. The caller gets ErrOutcomeUnknown (which wraps
//     ErrUnavailable), as for a conditional write whose retries ran out
//     after an ambiguous failure, and for a write in flight when the
//     caller's context ended: the write may or may not have been applied.
//
// # Azurite
//
// Tests run against Azurite, which differs from the real service in ways
// this package absorbs so that the conformance suite holds on both: entity
// operations resolve table names case-sensitively there (doTable retries
// with the spelling from the table list after a TableNotFound), DateTime
// filters are millisecond-precise (widened, above), and request bodies over
// 64 KiB lose non-ASCII characters split across chunks (escaped, see
// capture.go; only for the emulator account). Azurite also accepts batches
// that span partitions, which storage.Limits.ValidateBatch refuses first.
//
// # Secrets
//
// The account key and SAS signature never appear in errors or logs:
// ServiceError keeps only the operation, status, code and the first line of
// the service's message, scrubbed of both.
package aztables

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/sqlgw/sqlgw/storage"
)

// Options configure Open. The zero value (or nil) gives the defaults.
type Options struct {
	// RequestTimeout bounds each attempt of a request (default 30 s).
	RequestTimeout time.Duration
	// MaxRetries is the number of retries after the first attempt of a
	// retryable request (default 4; negative: none).
	MaxRetries int
	// RetryDelay is the first backoff window (default 100 ms); it doubles
	// with every retry up to MaxRetryDelay (default 5 s).
	RetryDelay    time.Duration
	MaxRetryDelay time.Duration
	// Cosmos selects the Cosmos DB Table API's stricter key limits and
	// unsorted results. It is also set automatically for endpoints under
	// table.cosmos.azure.com / table.cosmosdb.azure.com.
	Cosmos bool
	// Limits, if non-nil, replaces the key limits (default:
	// storage.DefaultLimits, or storage.CosmosLimits for Cosmos).
	Limits *storage.Limits
	// Azurite applies the workarounds Azurite needs (non-ASCII request
	// bodies escaped, see capture.go). It is set automatically for the
	// emulator's account, devstoreaccount1.
	Azurite bool
	// HTTPClient, if non-nil, sends the requests (tests inject faults
	// here). The default closes idle connections before the server does
	// (transport.go).
	HTTPClient policy.Transporter
	// DialContext, if non-nil, opens the connections to the service
	// when HTTPClient is nil, for the default transport and the lean
	// Get's own connections alike (default: a net.Dialer with a 30 s
	// timeout and TCP keep-alives). Tests and benchmarks observe or break
	// connections here.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// Credential, if non-nil, authenticates an endpoint-only spec instead
	// of the default credential chain (credential.go).
	Credential azcore.TokenCredential
	// Logf, if non-nil, receives one line per retried attempt.
	Logf func(format string, args ...any)
}

// Store is a storage.Store on one Table service account.
type Store struct {
	svc     *aztables.ServiceClient
	lean    *leanGet // Get Entity without the SDK's pipeline (leanget.go), nil: through the SDK
	opts    Options
	caps    storage.Capabilities
	secrets []string // scrubbed from any text kept in errors

	mu       sync.Mutex
	clients  map[string]*aztables.Client // by table name as sent
	spelling map[string]string           // lower-case name -> the spelling the service knows
	closed   bool
}

var _ storage.Store = (*Store)(nil)

// ErrClosed is returned by a Store used after Close.
var ErrClosed = errors.New("aztables: store is closed")

// Open connects to the Table service named by a connection string:
//
//   - Shared Key: AccountName=..;AccountKey=..; plus either TableEndpoint=URL
//     or DefaultEndpointsProtocol=https and EndpointSuffix=core.windows.net
//     (the defaults);
//   - SAS: TableEndpoint=URL;SharedAccessSignature=sv=...&sig=...
//     (AccountName with the default endpoint instead of TableEndpoint works too);
//   - UseDevelopmentStorage=true: Azurite on its default port 10002;
//   - an endpoint URL alone, https://ACCOUNT.table.core.windows.net (or a
//     Cosmos DB Table API endpoint): Microsoft Entra ID through the
//     default credential chain or Options.Credential (credential.go); the
//     URL may carry a SAS query instead.
//
// Open sends no request: a wrong key surfaces on first use, as ErrInvalid,
// and so does a credential chain that gets no token (naming every
// credential tried, see CredentialError).
func Open(ctx context.Context, connectionString string, opts *Options) (*Store, error) {
	var cs *connString
	var err error
	token := false
	if ep, ok, perr := parseEndpointSpec(connectionString); ok {
		if perr != nil {
			return nil, perr
		}
		cs = &connString{endpoint: ep.endpoint, sas: ep.sas}
		if u, err := url.Parse(ep.endpoint); err == nil {
			cs.accountName, _, _ = strings.Cut(u.Hostname(), ".")
		}
		token = ep.sas == ""
	} else if cs, err = parseConnectionString(connectionString); err != nil {
		return nil, err
	}
	s := &Store{clients: make(map[string]*aztables.Client), spelling: make(map[string]string)}
	if opts != nil {
		s.opts = *opts
	}
	if s.opts.RequestTimeout <= 0 {
		s.opts.RequestTimeout = 30 * time.Second
	}
	switch {
	case s.opts.MaxRetries == 0:
		s.opts.MaxRetries = 4
	case s.opts.MaxRetries < 0:
		s.opts.MaxRetries = 0
	}
	if s.opts.RetryDelay <= 0 {
		s.opts.RetryDelay = 100 * time.Millisecond
	}
	if s.opts.MaxRetryDelay <= 0 {
		s.opts.MaxRetryDelay = 5 * time.Second
	}
	if isCosmos(cs.endpoint) {
		s.opts.Cosmos = true
	}
	s.caps.Limits = storage.DefaultLimits
	s.caps.Cost = storage.AzureCost
	if s.opts.Cosmos {
		s.caps.Limits = storage.CosmosLimits
		s.caps.Unsorted = true
	}
	if s.opts.Limits != nil {
		s.caps.Limits = *s.opts.Limits
	}
	sig := cs.sasSignature()
	s.secrets = []string{cs.accountKey, sig, url.QueryEscape(sig)}

	co := &aztables.ClientOptions{}
	co.Retry.MaxRetries = -1 // our own retry loop (do), see the package doc
	if cs.accountName == "devstoreaccount1" || strings.Contains(cs.endpoint, "/devstoreaccount1") {
		s.opts.Azurite = true
	}
	co.PerCallPolicies = []policy.Policy{capturePolicy{asciiBodies: s.opts.Azurite}}
	idle := serviceIdleConnTimeout
	if s.opts.Azurite {
		idle = azuriteIdleConnTimeout
	}
	if s.opts.HTTPClient != nil {
		co.Transport = s.opts.HTTPClient
	} else {
		co.Transport = newTransport(idle, s.opts.DialContext)
	}
	co.Logging.IncludeBody = false
	if token {
		cred := s.opts.Credential
		if cred == nil {
			chain, err := newDefaultChain(lookupEnv)
			if err != nil {
				return nil, err
			}
			s.secrets = append(s.secrets, chain.secrets...)
			cred = chain
		}
		s.svc, err = aztables.NewServiceClient(cs.endpoint, cred, co)
		if err != nil {
			return nil, fmt.Errorf("%w: aztables: %s", storage.ErrInvalid, s.scrub(err.Error()))
		}
	} else if cs.accountKey != "" {
		cred, err := aztables.NewSharedKeyCredential(cs.accountName, cs.accountKey)
		if err != nil {
			return nil, fmt.Errorf("%w: aztables: the account key is not valid base64", storage.ErrInvalid)
		}
		s.svc, err = aztables.NewServiceClientWithSharedKey(cs.endpoint, cred, co)
		if err != nil {
			return nil, fmt.Errorf("%w: aztables: %s", storage.ErrInvalid, s.scrub(err.Error()))
		}
	} else {
		s.svc, err = aztables.NewServiceClientWithNoCredential(cs.endpoint+"?"+cs.sas, co)
		if err != nil {
			return nil, fmt.Errorf("%w: aztables: %s", storage.ErrInvalid, s.scrub(err.Error()))
		}
	}
	s.lean = newLeanGet(co.Transport, cs, token)
	if s.lean != nil && s.opts.HTTPClient == nil && !proxied(cs.endpoint) {
		// Get Entity's exchange on the calling goroutine (leanconn.go);
		// with a proxy or a caller's transport, that transport.
		s.lean.direct = newDirectPool(&s.lean.base, idle, s.opts.DialContext)
	}
	return s, nil
}

// proxied reports whether the environment names a proxy for the endpoint
// (the default transport's http.ProxyFromEnvironment).
func proxied(endpoint string) bool {
	req, err := http.NewRequest(http.MethodGet, endpoint, nil)
	if err != nil {
		return true
	}
	u, err := proxyFunc(req)
	return err != nil || u != nil
}

// proxyFunc is the default transport's Proxy (a variable for tests:
// net/http reads the environment once).
var proxyFunc = http.ProxyFromEnvironment

func isCosmos(endpoint string) bool {
	e := strings.ToLower(endpoint)
	return strings.Contains(e, ".table.cosmos.azure.com") || strings.Contains(e, ".table.cosmosdb.azure.com")
}

// Capabilities implements storage.Store.
func (s *Store) Capabilities() storage.Capabilities { return s.caps }

// Close implements storage.Store. The Table service holds no session, so
// Close makes later calls fail with ErrClosed and closes the lean Get's
// idle connections.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.lean != nil && s.lean.direct != nil {
		s.lean.direct.close()
	}
	return nil
}

// client validates a table name and checks that the store is open.
func (s *Store) client(table string) (*aztables.Client, error) {
	c, _, err := s.namedClient(table)
	return c, err
}

// namedClient is client, also returning the table's name as sent.
func (s *Store) namedClient(table string) (*aztables.Client, string, error) {
	if err := storage.ValidateTableName(table); err != nil {
		return nil, "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, "", ErrClosed
	}
	c, name := s.clientLocked(s.spelling[strings.ToLower(table)], table)
	return c, name, nil
}

// clientLocked returns the SDK client for the spelling known to the
// service, or table itself when none is known, and that name. s.mu must
// be held.
func (s *Store) clientLocked(known, table string) (*aztables.Client, string) {
	name := table
	if known != "" {
		name = known
	}
	c, ok := s.clients[name]
	if !ok {
		c = s.svc.NewClient(name)
		s.clients[name] = c
	}
	return c, name
}

// doTable runs an operation on a table's client through do. Table names
// are case-insensitive in the Table service, but Azurite resolves them
// case-sensitively for entity operations (CreateTable and DeleteTable are
// case-insensitive there too). So when an operation reports TableNotFound,
// the store looks the name up in the table list (one Query Tables request,
// on that error path only) and, if the table exists under another
// spelling, remembers it and runs the operation again with it. Against the
// real service the lookup happens only for tables that do not exist.
func (s *Store) doTable(ctx context.Context, op, table string, idem idempotency, fn func(ctx context.Context, c *aztables.Client) error) error {
	return s.doNamedTable(ctx, op, table, idem, func(ctx context.Context, c *aztables.Client, _ string) error { return fn(ctx, c) })
}

// doNamedTable is doTable for an operation that also needs the table's
// name as sent (the lean Get, leanget.go).
func (s *Store) doNamedTable(ctx context.Context, op, table string, idem idempotency, fn func(ctx context.Context, c *aztables.Client, name string) error) error {
	c, name, err := s.namedClient(table)
	if err != nil {
		return err
	}
	run := func(c *aztables.Client, name string) error {
		return s.do(ctx, op, idem, func(ctx context.Context, _ int) error { return fn(ctx, c, name) })
	}
	err = run(c, name)
	if !isTableNotFound(err) {
		return err
	}
	known, lerr := s.lookupSpelling(ctx, table)
	if lerr != nil || known == "" {
		return err
	}
	s.mu.Lock()
	c2, name2 := s.clientLocked(known, table)
	s.mu.Unlock()
	if c2 == c {
		return err
	}
	return run(c2, name2)
}

// lookupSpelling lists the tables and records the spelling of each; it
// returns the one of table ("" if there is none).
func (s *Store) lookupSpelling(ctx context.Context, table string) (string, error) {
	names, err := s.listTables(ctx)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	found := ""
	for _, n := range names {
		if strings.EqualFold(n, table) {
			found = n
			s.spelling[strings.ToLower(n)] = n
		}
	}
	if found == "" {
		delete(s.spelling, strings.ToLower(table))
	}
	return found, nil
}

func (s *Store) setSpelling(table string, known string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if known == "" {
		delete(s.spelling, strings.ToLower(table))
	} else {
		s.spelling[strings.ToLower(table)] = known
	}
}

func isTableNotFound(err error) bool {
	if err == nil {
		return false
	}
	var se *ServiceError
	return errors.As(err, &se) && se.Code == "TableNotFound"
}

func (s *Store) checkOpen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	return nil
}

// CreateTable implements storage.Store.
func (s *Store) CreateTable(ctx context.Context, table string) error {
	if err := storage.ValidateTableName(table); err != nil {
		return err
	}
	if err := s.checkOpen(); err != nil {
		return err
	}
	err := s.do(ctx, "CreateTable", onlyUnexecuted, func(ctx context.Context, _ int) error {
		_, err := s.svc.CreateTable(ctx, table, nil)
		return err
	})
	if err == nil {
		s.setSpelling(table, table)
	}
	return err
}

// DeleteTable implements storage.Store with one Delete Table request.
func (s *Store) DeleteTable(ctx context.Context, table string) error {
	if err := storage.ValidateTableName(table); err != nil {
		return err
	}
	if err := s.checkOpen(); err != nil {
		return err
	}
	err := s.do(ctx, "DeleteTable", onlyUnexecuted, func(ctx context.Context, _ int) error {
		_, err := s.svc.DeleteTable(ctx, table, nil)
		return err
	})
	if err == nil || errors.Is(err, storage.ErrNotFound) {
		s.setSpelling(table, "")
	}
	return err
}

// ListTables implements storage.Store, following every page.
func (s *Store) ListTables(ctx context.Context) ([]string, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	names, err := s.listTables(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(names, func(a, b string) int {
		return strings.Compare(strings.ToLower(a), strings.ToLower(b))
	})
	return names, nil
}

func (s *Store) listTables(ctx context.Context) ([]string, error) {
	var names []string
	var next *string
	for {
		var page aztables.ListTablesResponse
		err := s.do(ctx, "QueryTables", idempotent, func(ctx context.Context, _ int) error {
			p := s.svc.NewListTablesPager(&aztables.ListTablesOptions{NextTableName: next})
			var err error
			page, err = p.NextPage(ctx)
			return err
		})
		if err != nil {
			return nil, err
		}
		for _, t := range page.Tables {
			if t.Name != nil {
				names = append(names, *t.Name)
			}
		}
		if page.NextTableName == nil || *page.NextTableName == "" {
			break
		}
		next = page.NextTableName
	}
	return names, nil
}

// TableExists implements storage.Store with a one-entity query of the
// table's keys: the service's table names are case-insensitive, which a
// TableName filter on the Tables list is not.
func (s *Store) TableExists(ctx context.Context, table string) (bool, error) {
	_, err := s.client(table)
	if err != nil {
		return false, err
	}
	err = s.doTable(ctx, "QueryEntities", table, idempotent, func(ctx context.Context, c *aztables.Client) error {
		ctx, _ = withCapture(ctx, stubQuery)
		p := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Top: to.Ptr[int32](1), Select: to.Ptr("PartitionKey")})
		_, err := p.NextPage(ctx)
		return err
	})
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Get implements storage.Store with one point query.
func (s *Store) Get(ctx context.Context, table, pk, rk string, opts *storage.GetOptions) (*storage.Entity, error) {
	if err := s.caps.Limits.ValidateKeys(pk, rk); err != nil {
		return nil, err
	}
	var sel []string
	if opts != nil && opts.Select != nil {
		if err := s.caps.Limits.ValidateQuery(&storage.Query{Select: opts.Select}); err != nil {
			return nil, err
		}
		sel = opts.Select
	}
	var e *storage.Entity
	err := s.doNamedTable(ctx, "GetEntity", table, idempotent, func(ctx context.Context, c *aztables.Client, name string) error {
		if s.lean != nil {
			var list string
			if sel != nil {
				list = selectList(sel, nil)
			}
			body, etag, err := s.lean.get(ctx, name, pk, rk, list)
			if err != nil {
				return err
			}
			if e, err = decodeEntity(body, selectSet(sel)); err != nil {
				return err
			}
			if e.ETag == "" {
				e.ETag = storage.ETag(etag)
			}
			return nil
		}
		ctx, cap := withCapture(ctx, stubEntity)
		if sel != nil {
			cap.query = map[string]string{"$select": selectList(sel, nil)}
		}
		sdkPK := pk
		if pk == "" {
			sdkPK, cap.emptyPK = emptyPK, true
		}
		resp, err := c.GetEntity(ctx, sdkPK, rk, nil)
		if err != nil {
			return err
		}
		e, err = decodeEntity(cap.body, selectSet(sel))
		if err != nil {
			return err
		}
		if e.ETag == "" {
			e.ETag = storage.ETag(resp.ETag)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return e, nil
}

// Insert implements storage.Store.
func (s *Store) Insert(ctx context.Context, table string, e *storage.Entity) (storage.ETag, error) {
	if err := s.caps.Limits.ValidateEntity(e); err != nil {
		return "", err
	}
	_, err := s.client(table)
	if err != nil {
		return "", err
	}
	body, emptyKey, err := encodeEntity(e)
	if err != nil {
		return "", err
	}
	var etag azcore.ETag
	err = s.doTable(ctx, "InsertEntity", table, onlyUnexecuted, func(ctx context.Context, c *aztables.Client) error {
		ctx, cap := withCapture(ctx, nil)
		cap.emptyPK, cap.noEcho = emptyKey, true
		resp, err := c.AddEntity(ctx, body, nil)
		etag = resp.ETag
		return err
	})
	return storage.ETag(etag), err
}

// Upsert implements storage.Store (Insert Or Replace / Insert Or Merge).
func (s *Store) Upsert(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode) (storage.ETag, error) {
	if err := s.caps.Limits.ValidateEntity(e); err != nil {
		return "", err
	}
	_, err := s.client(table)
	if err != nil {
		return "", err
	}
	body, emptyKey, err := encodeEntity(e)
	if err != nil {
		return "", err
	}
	var etag azcore.ETag
	err = s.doTable(ctx, "UpsertEntity", table, idempotent, func(ctx context.Context, c *aztables.Client) error {
		ctx, cap := withCapture(ctx, nil)
		cap.emptyPK = emptyKey
		resp, err := c.UpsertEntity(ctx, body, &aztables.UpsertEntityOptions{UpdateMode: sdkMode(mode)})
		etag = resp.ETag
		return err
	})
	return storage.ETag(etag), err
}

// Update implements storage.Store (Update / Merge Entity with If-Match,
// "*" when ifMatch is empty, so a missing entity is ErrNotFound).
func (s *Store) Update(ctx context.Context, table string, e *storage.Entity, mode storage.UpdateMode, ifMatch storage.ETag) (storage.ETag, error) {
	if err := s.caps.Limits.ValidateEntity(e); err != nil {
		return "", err
	}
	_, err := s.client(table)
	if err != nil {
		return "", err
	}
	body, emptyKey, err := encodeEntity(e)
	if err != nil {
		return "", err
	}
	m := azcore.ETag(ifMatch)
	idem := conditional
	if ifMatch == "" || ifMatch == storage.ETagAny {
		m, idem = azcore.ETagAny, idempotent
	}
	var etag azcore.ETag
	err = s.doTable(ctx, "UpdateEntity", table, idem, func(ctx context.Context, c *aztables.Client) error {
		ctx, cap := withCapture(ctx, nil)
		cap.emptyPK = emptyKey
		resp, err := c.UpdateEntity(ctx, body, &aztables.UpdateEntityOptions{UpdateMode: sdkMode(mode), IfMatch: &m})
		etag = resp.ETag
		return err
	})
	return storage.ETag(etag), err
}

// Delete implements storage.Store.
func (s *Store) Delete(ctx context.Context, table, pk, rk string, ifMatch storage.ETag) error {
	if err := s.caps.Limits.ValidateKeys(pk, rk); err != nil {
		return err
	}
	_, err := s.client(table)
	if err != nil {
		return err
	}
	m := azcore.ETag(ifMatch)
	if ifMatch == "" {
		m = azcore.ETagAny
	}
	return s.doTable(ctx, "DeleteEntity", table, conditional, func(ctx context.Context, c *aztables.Client) error {
		ctx, cap := withCapture(ctx, nil)
		sdkPK := pk
		if pk == "" {
			sdkPK, cap.emptyPK = emptyPK, true
		}
		_, err := c.DeleteEntity(ctx, sdkPK, rk, &aztables.DeleteEntityOptions{IfMatch: &m})
		return err
	})
}

func sdkMode(m storage.UpdateMode) aztables.UpdateMode {
	if m == storage.Merge {
		return aztables.UpdateModeMerge
	}
	return aztables.UpdateModeReplace
}

// selectSet returns the set of user properties a projection keeps (nil: all).
func selectSet(sel []string) map[string]struct{} {
	if sel == nil {
		return nil
	}
	m := make(map[string]struct{}, len(sel))
	for _, n := range sel {
		m[n] = struct{}{}
	}
	return m
}

// selectList renders $select: the keys and Timestamp (always returned by
// the contract), the requested properties and extra ones (a filter's).
func selectList(sel, extra []string) string {
	seen := map[string]bool{storage.PropPartitionKey: true, storage.PropRowKey: true, storage.PropTimestamp: true}
	var sb strings.Builder
	sb.WriteString("PartitionKey,RowKey,Timestamp")
	for _, list := range [][]string{sel, extra} {
		for _, n := range list {
			if !seen[n] && n != "ETag" {
				seen[n] = true
				sb.WriteByte(',')
				sb.WriteString(n)
			}
		}
	}
	return sb.String()
}
