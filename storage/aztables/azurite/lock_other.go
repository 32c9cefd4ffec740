//go:build !unix

package azurite

import (
	"context"
	"errors"
)

func lockFile(ctx context.Context, path string) (func(), error) {
	return nil, errors.New("azurite: installing Azurite needs flock(2); install it on a Unix system")
}
