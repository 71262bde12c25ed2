module github.com/libmfusim/libmfusim/bindings/go

go 1.21
