package aztables

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/sqlgw/sqlgw/storage"
)

// Batch implements storage.Store with one entity group transaction
// (SubmitTransaction). The batch rules, including the one-partition rule
// that Azurite does not enforce, are checked first by
// storage.Limits.ValidateBatch. The SDK reports neither the ETags of a
// successful batch nor which operation failed; both are decoded here from
// the raw multipart response (see capture.go): the failing operation's
// index is the "N:" prefix of the service's error message.
func (s *Store) Batch(ctx context.Context, table string, ops []storage.Operation) ([]storage.ETag, error) {
	if err := s.caps.Limits.ValidateBatch(ops); err != nil {
		return nil, err
	}
	_, err := s.client(table)
	if err != nil {
		return nil, &storage.BatchError{Index: -1, Err: err}
	}
	actions := make([]aztables.TransactionAction, len(ops))
	emptyKey := false
	for i, op := range ops {
		a := &actions[i]
		var e *storage.Entity
		if op.Kind == storage.OpDelete {
			e = &storage.Entity{PartitionKey: op.Entity.PartitionKey, RowKey: op.Entity.RowKey}
		} else {
			e = op.Entity
		}
		body, ek, err := encodeEntity(e)
		if err != nil {
			return nil, &storage.BatchError{Index: i, Err: err}
		}
		emptyKey = emptyKey || ek
		a.Entity = body
		switch op.Kind {
		case storage.OpInsert:
			a.ActionType = aztables.TransactionTypeAdd
		case storage.OpUpsert:
			a.ActionType = aztables.TransactionTypeInsertReplace
			if op.Mode == storage.Merge {
				a.ActionType = aztables.TransactionTypeInsertMerge
			}
		case storage.OpUpdate, storage.OpDelete:
			a.ActionType = aztables.TransactionTypeUpdateReplace
			if op.Kind == storage.OpDelete {
				a.ActionType = aztables.TransactionTypeDelete
			} else if op.Mode == storage.Merge {
				a.ActionType = aztables.TransactionTypeUpdateMerge
			}
			// Without If-Match an update in a batch is an upsert.
			m := azcore.ETag(op.IfMatch)
			if m == "" {
				m = azcore.ETagAny
			}
			a.IfMatch = &m
		}
	}
	var etags []storage.ETag
	err = s.doTable(ctx, "SubmitTransaction", table, onlyUnexecuted, func(ctx context.Context, c *aztables.Client) error {
		ctx, cap := withCapture(ctx, nil)
		cap.emptyPK = emptyKey
		_, err := c.SubmitTransaction(ctx, actions, nil)
		if cap.status != http.StatusAccepted {
			return err // a whole-request failure (or none): mapped by do
		}
		var berr error
		etags, berr = decodeBatchResponse(cap.header.Get("Content-Type"), cap.body, len(ops))
		if berr != nil {
			return berr
		}
		if err != nil {
			// The SDK saw a failure that the response does not show.
			return &storage.BatchError{Index: -1, Err: &ServiceError{Op: "SubmitTransaction", Status: cap.status,
				Sentinel: storage.ErrUnavailable, cause: errors.New("batch failed without an operation error")}}
		}
		return nil
	})
	if err != nil {
		var be *storage.BatchError
		if !errors.As(err, &be) {
			err = &storage.BatchError{Index: -1, Err: err}
		}
		return nil, err
	}
	return etags, nil
}

// decodeBatchResponse reads the multipart/mixed response of a batch: a
// changeset whose parts are HTTP responses, one per operation on success,
// or a single error response on failure.
func decodeBatchResponse(contentType string, body []byte, n int) ([]storage.ETag, error) {
	malformed := func(why string) error {
		return &storage.BatchError{Index: -1, Err: &ServiceError{Op: "SubmitTransaction", Status: http.StatusAccepted,
			Sentinel: storage.ErrUnavailable, cause: fmt.Errorf("malformed batch response: %s", why)}}
	}
	outer, err := boundaryOf(contentType, body)
	if err != nil {
		return nil, malformed(err.Error())
	}
	mr := multipart.NewReader(bytes.NewReader(body), outer)
	part, err := mr.NextPart()
	if err != nil {
		return nil, malformed(err.Error())
	}
	cs, err := io.ReadAll(part)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, malformed(err.Error())
	}
	inner, err := boundaryOf(part.Header.Get("Content-Type"), cs)
	if err != nil {
		return nil, malformed(err.Error())
	}
	ir := multipart.NewReader(bytes.NewReader(cs), inner)
	etags := make([]storage.ETag, 0, n)
	for i := 0; ; i++ {
		p, err := ir.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, malformed(err.Error())
		}
		resp, err := http.ReadResponse(bufio.NewReader(p), nil)
		if err != nil {
			return nil, malformed(err.Error())
		}
		rb, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 400 {
			code, msg := parseODataError(rb)
			index := -1
			if k, rest, ok := strings.Cut(msg, ":"); ok {
				if v, err := strconv.Atoi(k); err == nil && v >= 0 && v < n {
					index, msg = v, rest
				}
			}
			if index < 0 && n == 1 {
				index = 0
			}
			sentinel, _ := statusSentinel(resp.StatusCode, code)
			return nil, &storage.BatchError{Index: index, Err: &ServiceError{Op: "SubmitTransaction",
				Status: resp.StatusCode, Code: code, Message: msg, Sentinel: sentinel}}
		}
		etags = append(etags, storage.ETag(resp.Header.Get("ETag")))
	}
	if len(etags) != n {
		return nil, malformed(fmt.Sprintf("%d responses for %d operations", len(etags), n))
	}
	return etags, nil
}

// boundaryOf returns the multipart boundary from a Content-Type, or from
// the body's first line when the header lacks it.
func boundaryOf(contentType string, body []byte) (string, error) {
	if _, params, err := mime.ParseMediaType(contentType); err == nil && params["boundary"] != "" {
		return params["boundary"], nil
	}
	line, _, _ := bytes.Cut(body, []byte("\n"))
	line = bytes.TrimRight(line, "\r")
	if !bytes.HasPrefix(line, []byte("--")) {
		return "", errors.New("no multipart boundary")
	}
	return string(line[2:]), nil
}
