package aztables

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
)

// capturePolicy is the pipeline policy through which this package works
// around what the SDK's wrappers hide or get wrong. It acts only on
// requests whose context carries a *capture (withCapture):
//
//   - it keeps the raw response body and status, which the package decodes
//     itself (the SDK's map[string]any decoding loses whole Doubles, and its
//     batch wrapper drops the failing operation's index);
//   - it replaces a successful response body with a stub the SDK decodes
//     at no cost, since the SDK's result would be thrown away;
//   - it adds what the SDK's wrappers do not expose: $select on a point
//     query, and Prefer: return-no-content on an insert (the service would
//     otherwise send the whole entity back);
//   - it substitutes the empty PartitionKey for a placeholder the package
//     passes to the SDK, whose request builders refuse an empty key in an
//     entity URL although the service accepts it;
//   - for Azurite (asciiBodies), it escapes every non-ASCII character of a
//     request body as \uXXXX. Azurite decodes each chunk of a request body
//     to text separately (segments.join("") in its table serializer), so a
//     UTF-8 sequence split across two chunks of a body over 64 KiB becomes
//     U+FFFD: the value is corrupted, or rejected as too long when it is at
//     the 32 Ki-unit limit. An ASCII body cannot be split that way. Non-ASCII
//     bytes only ever occur inside JSON strings, where the escape means the
//     same character. The real service does not need this, and the escapes
//     lengthen bodies, so it is off there.
type capturePolicy struct {
	asciiBodies bool
}

type captureKey struct{}

type capture struct {
	stub    []byte            // replaces a 200 response's body, if non-nil
	emptyPK bool              // the request uses the emptyPK placeholder
	query   map[string]string // added to the request URL
	noEcho  bool              // ask the service not to echo a written entity (Prefer: return-no-content)
	status  int
	header  http.Header
	body    []byte
}

// Stubs for withCapture.
var (
	stubEntity = []byte("{}")
	stubQuery  = []byte(`{"value":[]}`)
)

func withCapture(ctx context.Context, stub []byte) (context.Context, *capture) {
	c := &capture{stub: stub}
	return context.WithValue(ctx, captureKey{}, c), c
}

// emptyPK stands for the empty PartitionKey between this package and the
// SDK. It holds '#', which no valid key does (storage.ValidateKey), so it
// never meets a real key.
const emptyPK = "#sqlgw-empty-pk#"

var (
	emptyPKEscaped = "%23sqlgw-empty-pk%23" // as url.PathEscape writes it
	emptyPKJSON    = []byte(`"PartitionKey":"` + emptyPK + `"`)
	emptyPKJSONFix = []byte(`"PartitionKey":""`)
)

func (p capturePolicy) Do(req *policy.Request) (*http.Response, error) {
	raw := req.Raw()
	if p.asciiBodies && raw.Body != nil {
		if err := escapeBody(req); err != nil {
			return nil, err
		}
	}
	c, _ := raw.Context().Value(captureKey{}).(*capture)
	if c == nil {
		return req.Next()
	}
	if c.emptyPK {
		if err := fixEmptyPK(req); err != nil {
			return nil, err
		}
	}
	if c.noEcho {
		raw.Header.Set("Prefer", "return-no-content")
	}
	if len(c.query) > 0 {
		q := raw.URL.Query()
		for k, v := range c.query {
			q.Set(k, v)
		}
		raw.URL.RawQuery = q.Encode()
	}
	resp, err := req.Next()
	if err != nil {
		return resp, err
	}
	c.status = resp.StatusCode
	c.header = resp.Header
	body, err := runtime.Payload(resp)
	if err != nil {
		return resp, err
	}
	c.body = body
	if c.stub != nil && resp.StatusCode == http.StatusOK {
		resp.Body = io.NopCloser(bytes.NewReader(c.stub))
	}
	return resp, nil
}

// fixEmptyPK replaces the emptyPK placeholder by the empty key: in the URL
// path, in the entity body's PartitionKey, and in the request lines of a
// batch body. Body text that merely contains the placeholder (a String
// property) is left alone: in JSON its quotes are escaped, and a batch's
// request lines are the only lines starting with an HTTP method.
func fixEmptyPK(req *policy.Request) error {
	raw := req.Raw()
	if strings.Contains(raw.URL.Path, emptyPK) {
		raw.URL.Path = strings.ReplaceAll(raw.URL.Path, emptyPK, "")
		raw.URL.RawPath = strings.ReplaceAll(raw.URL.RawPath, emptyPKEscaped, "")
	}
	if raw.Body == nil {
		return nil
	}
	body, err := io.ReadAll(raw.Body)
	if err != nil {
		return err
	}
	raw.Body.Close()
	if bytes.Contains(body, []byte(emptyPK)) || bytes.Contains(body, []byte(emptyPKEscaped)) {
		body = bytes.ReplaceAll(body, emptyPKJSON, emptyPKJSONFix)
		lines := bytes.SplitAfter(body, []byte("\n"))
		for i, l := range lines {
			for _, m := range []string{"PUT ", "MERGE ", "DELETE ", "PATCH ", "POST "} {
				if bytes.HasPrefix(l, []byte(m)) {
					lines[i] = bytes.ReplaceAll(l, []byte(emptyPKEscaped), nil)
					break
				}
			}
		}
		body = bytes.Join(lines, nil)
	}
	return req.SetBody(streaming.NopCloser(bytes.NewReader(body)), raw.Header.Get("Content-Type"))
}

// escapeBody rewrites a request body with every non-ASCII character as a
// JSON \uXXXX escape (a surrogate pair above U+FFFF).
func escapeBody(req *policy.Request) error {
	raw := req.Raw()
	body, err := io.ReadAll(raw.Body)
	if err != nil {
		return err
	}
	raw.Body.Close()
	body = appendASCII(nil, body)
	return req.SetBody(streaming.NopCloser(bytes.NewReader(body)), raw.Header.Get("Content-Type"))
}

// appendASCII appends b to dst with non-ASCII runes escaped as \uXXXX.
func appendASCII(dst, b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	if i == len(b) {
		return append(dst, b...)
	}
	dst = append(dst, b[:i]...)
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			dst = appendU(appendU(dst, hi), lo)
		} else {
			dst = appendU(dst, r)
		}
	}
	return dst
}

func appendU(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}
