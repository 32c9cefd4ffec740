package azurite

import (
	"testing"
	"time"

	sdk "github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// AccountSAS signs an account SAS for the Table service (every permission,
// valid from an hour ago to an hour from now) with Azurite's key, and
// returns its query string and its signature: what a test needs for a
// TableEndpoint + SharedAccessSignature connection string, and to check
// that the signature is never printed.
func AccountSAS(t testing.TB) (query, sig string) {
	t.Helper()
	cred, err := sdk.NewSharedKeyCredential(AccountName, AccountKey)
	if err != nil {
		t.Fatal(err)
	}
	qp, err := sdk.AccountSASSignatureValues{
		Protocol:      sdk.SASProtocolHTTPSandHTTP,
		StartTime:     time.Now().Add(-time.Hour).UTC(),
		ExpiryTime:    time.Now().Add(time.Hour).UTC(),
		Permissions:   sdk.AccountSASPermissions{Read: true, Write: true, Delete: true, List: true, Add: true, Create: true, Update: true}.String(),
		Services:      "t",
		ResourceTypes: sdk.AccountSASResourceTypes{Service: true, Container: true, Object: true}.String(),
	}.Sign(cred)
	if err != nil {
		t.Fatal(err)
	}
	return qp.Encode(), qp.Signature()
}
