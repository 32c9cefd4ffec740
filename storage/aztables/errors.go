package aztables

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	"github.com/sqlgw/sqlgw/storage"
)

// ServiceError is a failure reported by the Table service (or the network),
// already mapped to a storage sentinel: errors.Is(err, storage.ErrNotFound)
// and the like work on it. Its text names the operation, the HTTP status and
// the service's error code; it never contains a URL (which may carry a SAS
// signature), a request header or the account key.
type ServiceError struct {
	Op       string // "GetEntity", "QueryEntities", ...
	Status   int    // HTTP status; 0 for network errors
	Code     string // the service's error code, e.g. "EntityNotFound"
	Message  string // the first line of the service's message, scrubbed
	Sentinel error  // the storage sentinel this maps to
	cause    error  // a network or context error, if any
}

func (e *ServiceError) Error() string {
	var sb strings.Builder
	sb.WriteString("aztables: ")
	sb.WriteString(e.Op)
	if e.Status != 0 {
		fmt.Fprintf(&sb, ": HTTP %d", e.Status)
	}
	if e.Code != "" {
		sb.WriteString(" ")
		sb.WriteString(e.Code)
	}
	if e.Message != "" {
		sb.WriteString(": ")
		sb.WriteString(e.Message)
	}
	if e.cause != nil {
		sb.WriteString(": ")
		sb.WriteString(e.cause.Error())
	}
	sb.WriteString(" (")
	sb.WriteString(e.Sentinel.Error())
	sb.WriteString(")")
	return sb.String()
}

// Unwrap returns the sentinel and, for network failures, the cause.
func (e *ServiceError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.Sentinel, e.cause}
	}
	return []error{e.Sentinel}
}

// retryClass says whether a failed attempt may be sent again.
type retryClass uint8

const (
	noRetry retryClass = iota
	// notExecuted: the service did not act on the request (throttling,
	// connection refused): any operation may be retried.
	notExecuted
	// ambiguous: the request may or may not have taken effect (500
	// timeouts, a connection lost mid-request, an attempt timeout): only
	// idempotent operations may be retried.
	ambiguous
)

// mapError is the one place that turns SDK, HTTP and network errors into
// storage sentinels. It also classifies the error for the retry loop.
// secrets are scrubbed from any text kept from the service.
func (s *Store) mapError(op string, err error) (*ServiceError, retryClass) {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		se := &ServiceError{Op: op, Status: re.StatusCode, Code: re.ErrorCode}
		if re.RawResponse != nil {
			if se.Code == "" {
				se.Code = re.RawResponse.Header.Get("x-ms-error-code")
			}
			if body, err := runtime.Payload(re.RawResponse); err == nil {
				code, msg := parseODataError(body)
				if se.Code == "" {
					se.Code = code
				}
				se.Message = s.scrub(msg)
			}
		}
		se.Sentinel, _ = statusSentinel(se.Status, se.Code)
		return se, statusRetryClass(se.Status, se.Code)
	}
	// Everything else is the transport: DNS, dial, reset, timeouts.
	se := &ServiceError{Op: op, Sentinel: storage.ErrUnavailable, cause: errors.New(s.scrub(err.Error()))}
	var op2 *net.OpError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED),
		errors.As(err, &op2) && op2.Op == "dial":
		return se, notExecuted
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, context.DeadlineExceeded):
		return se, ambiguous
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return se, ambiguous
	}
	// An SDK-side failure before sending (a marshalling error...) is a bug
	// of this package or a malformed request.
	se.Sentinel = storage.ErrInvalid
	return se, noRetry
}

// statusSentinel maps an HTTP status and the service's error code to a
// sentinel. Codes are those of the Table service's error code list.
func statusSentinel(status int, code string) (error, bool) {
	switch code {
	case "EntityAlreadyExists", "TableAlreadyExists":
		return storage.ErrAlreadyExists, true
	case "TableNotFound", "ResourceNotFound", "EntityNotFound":
		return storage.ErrNotFound, true
	case "UpdateConditionNotSatisfied", "ConditionNotMet":
		return storage.ErrPreconditionFailed, true
	case "PropertyValueTooLarge", "EntityTooLarge", "RequestBodyTooLarge", "TooManyProperties", "KeyValueTooLarge":
		return storage.ErrTooLarge, true
	case "ServerBusy", "OperationTimedOut", "InternalError", "TableBeingDeleted":
		return storage.ErrUnavailable, true
	case "InvalidInput", "OutOfRangeInput", "InvalidResourceName", "PropertyNameInvalid",
		"InvalidDuplicateRow", "InvalidValueType", "PropertyNameTooLong", "XMethodNotUsingPost":
		return storage.ErrInvalid, true
	}
	switch {
	case status == http.StatusNotFound:
		return storage.ErrNotFound, true
	case status == http.StatusConflict:
		return storage.ErrAlreadyExists, true
	case status == http.StatusPreconditionFailed:
		return storage.ErrPreconditionFailed, true
	case status == http.StatusRequestEntityTooLarge:
		return storage.ErrTooLarge, true
	case status == http.StatusTooManyRequests || status == http.StatusRequestTimeout || status >= 500:
		return storage.ErrUnavailable, true
	}
	// 400 and the rest, including 401/403 (bad credentials or SAS): the
	// request cannot succeed as sent.
	return storage.ErrInvalid, false
}

func statusRetryClass(status int, code string) retryClass {
	switch {
	case status == http.StatusServiceUnavailable, status == http.StatusTooManyRequests:
		// ServerBusy / throttling: the service rejected the request unexecuted.
		return notExecuted
	case status == http.StatusRequestTimeout, status == http.StatusInternalServerError,
		status == http.StatusBadGateway, status == http.StatusGatewayTimeout:
		return ambiguous
	case status == http.StatusConflict && code == "TableBeingDeleted":
		return notExecuted
	}
	return noRetry
}

// retryAfter returns the delay the service asked for, if any.
func retryAfter(err error) time.Duration {
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.RawResponse == nil {
		return 0
	}
	h := re.RawResponse.Header
	if v := h.Get("x-ms-retry-after-ms"); v != "" {
		if ms, err := strconv.Atoi(v); err == nil && ms > 0 {
			return time.Duration(ms) * time.Millisecond
		}
	}
	if v := h.Get("Retry-After"); v != "" {
		if sec, err := strconv.Atoi(v); err == nil && sec > 0 {
			return time.Duration(sec) * time.Second
		}
	}
	return 0
}

// idempotency says which failures an operation may be retried after.
type idempotency uint8

const (
	// onlyUnexecuted: the operation is not idempotent (Insert, Batch,
	// CreateTable, DeleteTable): it is retried only when the service
	// certainly did not execute it.
	onlyUnexecuted idempotency = iota
	// idempotent: sending it twice has the effect of sending it once (Get,
	// Query, Upsert, unconditional Update): retried after any transient failure.
	idempotent
	// conditional: the operation cannot apply twice (Update with an ETag,
	// Delete): a second application fails with 412 or 404 instead. It is
	// retried after any transient failure, but a 412 or 404 that follows an
	// ambiguous failure is reported as ErrUnavailable ("outcome unknown"):
	// it may be the echo of our own first attempt.
	conditional
)

// do runs one request with the retry policy: per-attempt timeouts,
// exponential backoff with full jitter, and the caller's ctx honoured.
// attempt receives the attempt number (0 first) and a context bounded by
// the per-request timeout.
func (s *Store) do(ctx context.Context, op string, idem idempotency, attempt func(ctx context.Context, n int) error) error {
	var doubt *ServiceError // the ambiguous failure of an earlier attempt
	for n := 0; ; n++ {
		if err := ctx.Err(); err != nil {
			return s.ctxError(op, ctx)
		}
		actx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
		err := attempt(actx, n)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			// The caller gave up: report that, not the attempt's error. A
			// write that was in flight may have been applied.
			cerr := s.ctxError(op, ctx)
			if idem != idempotent {
				cerr.Sentinel = storage.ErrOutcomeUnknown
			}
			return cerr
		}
		var se *ServiceError
		var class retryClass
		if errors.As(err, &se) {
			// Already mapped (e.g. by the batch decoder): final.
			return err
		}
		se, class = s.mapError(op, err)
		if errors.Is(err, context.DeadlineExceeded) && class == ambiguous {
			se.cause = fmt.Errorf("attempt timed out after %v", s.opts.RequestTimeout)
		}
		if doubt != nil && idem == conditional &&
			(errors.Is(se, storage.ErrNotFound) || errors.Is(se, storage.ErrPreconditionFailed)) {
			return &ServiceError{Op: op, Sentinel: storage.ErrOutcomeUnknown, cause: fmt.Errorf(
				"outcome unknown: attempt %d failed ambiguously (%v), and a retry found the entity changed or gone (%s), possibly by that attempt",
				n, doubt, se.Code)}
		}
		if class == ambiguous {
			doubt = se
		}
		retry := class == notExecuted || (class == ambiguous && idem != onlyUnexecuted)
		if !retry || n >= s.opts.MaxRetries {
			if doubt != nil && idem != idempotent && errors.Is(se, storage.ErrUnavailable) {
				// A write that failed ambiguously (now or in an earlier
				// attempt) and is not retried again: it may have applied.
				se.Sentinel = storage.ErrOutcomeUnknown
			}
			return se
		}
		delay := s.backoff(n)
		if ra := retryAfter(err); ra > delay {
			delay = ra
		}
		if s.opts.Logf != nil {
			s.opts.Logf("aztables: %s attempt %d failed, retrying in %v: %v", op, n+1, delay.Round(time.Millisecond), se)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return s.ctxError(op, ctx)
		case <-t.C:
		}
	}
}

// backoff returns the delay before retry n+1: full jitter over an
// exponentially growing window, capped at MaxRetryDelay.
func (s *Store) backoff(n int) time.Duration {
	window := s.opts.RetryDelay << min(n, 16)
	if window <= 0 || window > s.opts.MaxRetryDelay {
		window = s.opts.MaxRetryDelay
	}
	return window/2 + rand.N(window/2+1)
}

// ctxError reports the caller's cancellation: it wraps ctx.Err(), so
// errors.Is(err, context.Canceled) holds, and ErrUnavailable.
func (s *Store) ctxError(op string, ctx context.Context) *ServiceError {
	return &ServiceError{Op: op, Sentinel: storage.ErrUnavailable, cause: ctx.Err()}
}

// scrub removes secrets from text that came from the SDK or the network.
func (s *Store) scrub(text string) string {
	for _, secret := range s.secrets {
		if secret != "" {
			text = strings.ReplaceAll(text, secret, "REDACTED")
		}
	}
	// URLs of SAS clients carry the signature in the query: drop queries.
	return urlQuery.ReplaceAllString(text, "$1")
}

var urlQuery = regexp.MustCompile(`(https?://[^\s"'?]*)\?[^\s"']*`)

// parseODataError extracts the code and the first line of the message from
// an OData error body: {"odata.error":{"code":..,"message":{"value":..}}}.
func parseODataError(body []byte) (code, msg string) {
	var e struct {
		Err struct {
			Code    string `json:"code"`
			Message struct {
				Value string `json:"value"`
			} `json:"message"`
		} `json:"odata.error"`
	}
	if json.Unmarshal(body, &e) != nil {
		return "", ""
	}
	msg = e.Err.Message.Value
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return e.Err.Code, msg
}
