package rpccore

// funcs.go builds Methods from typed Go functions. Decoders and encoders are
// chosen here, once; a call only runs them.

import (
	"context"
	"reflect"
)

// Func0 makes a Method of a function without params.
func Func0[R any](fn func(context.Context) (R, error)) *Method {
	m := newMethod()
	m.result = reflect.TypeFor[R]()
	enc := encoderFor[R]()
	m.call = func(ctx context.Context, params callParams, dst []byte) ([]byte, error) {
		if err := m.split(&params, nil); err != nil {
			return dst, err
		}
		r, err := fn(ctx)
		if err != nil {
			return dst, err
		}
		return enc.write(dst, r)
	}
	return m
}

// Func1 makes a Method of a function of one param, called name.
func Func1[A, R any](fn func(context.Context, A) (R, error), name string) *Method {
	m := newMethod(paramOf[A](name))
	m.result = reflect.TypeFor[R]()
	da, enc := decoderFor[A](), encoderFor[R]()
	m.call = func(ctx context.Context, params callParams, dst []byte) ([]byte, error) {
		var raw [1][]byte
		if err := m.split(&params, raw[:]); err != nil {
			return dst, err
		}
		a, err := decodeParam(m, 0, raw[0], da)
		if err != nil {
			return dst, err
		}
		r, err := fn(ctx, a)
		if err != nil {
			return dst, err
		}
		return enc.write(dst, r)
	}
	return m
}

// Func2 makes a Method of a function of two params, named in order.
func Func2[A, B, R any](fn func(context.Context, A, B) (R, error), nameA, nameB string) *Method {
	m := newMethod(paramOf[A](nameA), paramOf[B](nameB))
	m.result = reflect.TypeFor[R]()
	da, db, enc := decoderFor[A](), decoderFor[B](), encoderFor[R]()
	m.call = func(ctx context.Context, params callParams, dst []byte) ([]byte, error) {
		var raw [2][]byte
		if err := m.split(&params, raw[:]); err != nil {
			return dst, err
		}
		a, err := decodeParam(m, 0, raw[0], da)
		if err != nil {
			return dst, err
		}
		b, err := decodeParam(m, 1, raw[1], db)
		if err != nil {
			return dst, err
		}
		r, err := fn(ctx, a, b)
		if err != nil {
			return dst, err
		}
		return enc.write(dst, r)
	}
	return m
}

// Func3 makes a Method of a function of three params, named in order.
func Func3[A, B, C, R any](fn func(context.Context, A, B, C) (R, error), nameA, nameB, nameC string) *Method {
	m := newMethod(paramOf[A](nameA), paramOf[B](nameB), paramOf[C](nameC))
	m.result = reflect.TypeFor[R]()
	da, db, dc, enc := decoderFor[A](), decoderFor[B](), decoderFor[C](), encoderFor[R]()
	m.call = func(ctx context.Context, params callParams, dst []byte) ([]byte, error) {
		var raw [3][]byte
		if err := m.split(&params, raw[:]); err != nil {
			return dst, err
		}
		a, err := decodeParam(m, 0, raw[0], da)
		if err != nil {
			return dst, err
		}
		b, err := decodeParam(m, 1, raw[1], db)
		if err != nil {
			return dst, err
		}
		c, err := decodeParam(m, 2, raw[2], dc)
		if err != nil {
			return dst, err
		}
		r, err := fn(ctx, a, b, c)
		if err != nil {
			return dst, err
		}
		return enc.write(dst, r)
	}
	return m
}

// Func4 makes a Method of a function of four params, named in order.
func Func4[A, B, C, D, R any](fn func(context.Context, A, B, C, D) (R, error), nameA, nameB, nameC, nameD string) *Method {
	m := newMethod(paramOf[A](nameA), paramOf[B](nameB), paramOf[C](nameC), paramOf[D](nameD))
	m.result = reflect.TypeFor[R]()
	da, db, dc, dd, enc := decoderFor[A](), decoderFor[B](), decoderFor[C](), decoderFor[D](), encoderFor[R]()
	m.call = func(ctx context.Context, params callParams, dst []byte) ([]byte, error) {
		var raw [4][]byte
		if err := m.split(&params, raw[:]); err != nil {
			return dst, err
		}
		a, err := decodeParam(m, 0, raw[0], da)
		if err != nil {
			return dst, err
		}
		b, err := decodeParam(m, 1, raw[1], db)
		if err != nil {
			return dst, err
		}
		c, err := decodeParam(m, 2, raw[2], dc)
		if err != nil {
			return dst, err
		}
		d, err := decodeParam(m, 3, raw[3], dd)
		if err != nil {
			return dst, err
		}
		r, err := fn(ctx, a, b, c, d)
		if err != nil {
			return dst, err
		}
		return enc.write(dst, r)
	}
	return m
}

// none is the result of procedures; it encodes as null.
type none struct{}

func encodeNone(dst []byte, _ none) ([]byte, error) { return append(dst, "null"...), nil }

// Proc0 makes a Method of a function without params or result; a call
// answers null.
func Proc0(fn func(context.Context) error) *Method {
	return Func0(func(ctx context.Context) (none, error) { return none{}, fn(ctx) })
}

// Proc1 makes a Method of a function of one param without result.
func Proc1[A any](fn func(context.Context, A) error, name string) *Method {
	return Func1(func(ctx context.Context, a A) (none, error) { return none{}, fn(ctx, a) }, name)
}

// Proc2 makes a Method of a function of two params without result.
func Proc2[A, B any](fn func(context.Context, A, B) error, nameA, nameB string) *Method {
	return Func2(func(ctx context.Context, a A, b B) (none, error) { return none{}, fn(ctx, a, b) }, nameA, nameB)
}

// Proc3 makes a Method of a function of three params without result.
func Proc3[A, B, C any](fn func(context.Context, A, B, C) error, nameA, nameB, nameC string) *Method {
	return Func3(func(ctx context.Context, a A, b B, c C) (none, error) { return none{}, fn(ctx, a, b, c) },
		nameA, nameB, nameC)
}

// Variadic makes a Method whose params are any number of values of one
// type: positional params are the elements themselves ([1, 2, 4]); named
// params hold them as an array under name ({"name": [1, 2, 4]}). Absent
// params give an empty slice.
func Variadic[E, R any](fn func(context.Context, []E) (R, error), name string) *Method {
	m := newMethod(paramOf[[]E](name))
	m.params[0].optional = true
	m.result, m.variadic = reflect.TypeFor[R](), true
	dec, enc := decodeSlice(decoderFor[E]()), encoderFor[R]()
	m.call = func(ctx context.Context, params callParams, dst []byte) ([]byte, error) {
		values := []E{}
		if params.raw != nil {
			list := params.raw
			if list[0] == '{' {
				var raw [1][]byte
				if err := m.split(&params, raw[:]); err != nil {
					return dst, err
				}
				list = raw[0]
			}
			if list != nil {
				var err error
				if values, err = decodeParam(m, 0, list, dec); err != nil {
					return dst, err
				}
			}
		}
		r, err := fn(ctx, values)
		if err != nil {
			return dst, err
		}
		return enc.write(dst, r)
	}
	return m
}

// Raw makes a Method that handles its params itself: params is the raw JSON
// array or object (nil when the call has none), valid only during the call,
// and the method writes its result through w (null if it writes nothing).
func Raw(fn func(ctx context.Context, params []byte, w *ResultWriter) error) *Method {
	m := newMethod()
	m.raw = true
	m.call = func(ctx context.Context, params callParams, dst []byte) ([]byte, error) {
		w := resultWriterPool.Get().(*ResultWriter)
		w.buf, w.start = dst, len(dst)
		err := fn(ctx, params.raw, w)
		out := w.buf
		w.buf = nil
		resultWriterPool.Put(w)
		return out, err
	}
	return m
}
