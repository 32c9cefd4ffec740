// A module of its own, so that the gateway's module does not depend on GORM.
module github.com/sqlgw/sqlgw/testdata/compat/go

go 1.26

require (
	github.com/go-sql-driver/mysql v1.8.1
	gorm.io/driver/mysql v1.6.0
	gorm.io/gorm v1.31.1
)

require (
	filippo.io/edwards25519 v1.1.0 // indirect
	github.com/jinzhu/inflection v1.0.0 // indirect
	github.com/jinzhu/now v1.1.5 // indirect
	github.com/jmoiron/sqlx v1.4.0 // indirect
	golang.org/x/text v0.20.0 // indirect
)
