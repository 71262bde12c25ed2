module github.com/libmfusim/libmfusim/bindings/go-swig

go 1.21
