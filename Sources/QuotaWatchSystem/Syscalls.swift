import CQuotaWatchShims
import Glibc

// The only place QuotaWatch calls the C library for file-system work. Everything above this
// file sees typed values and `Errno`; a test that needs a fault injects it here.

func system_openat(_ directory: CInt, _ path: UnsafePointer<CChar>, _ flags: CInt, _ mode: mode_t) -> CInt {
    unsafe openat(directory, path, flags, mode)
}

func system_close(_ descriptor: CInt) -> CInt {
    close(descriptor)
}

func system_fstatat(
    _ directory: CInt, _ path: UnsafePointer<CChar>, _ status: UnsafeMutablePointer<stat>, _ flags: CInt
) -> CInt {
    unsafe fstatat(directory, path, status, flags)
}

func system_getdents64(_ descriptor: CInt, _ buffer: UnsafeMutableRawPointer, _ length: Int) -> Int {
    unsafe qw_getdents64(descriptor, buffer, length)
}

func system_read(_ descriptor: CInt, _ buffer: UnsafeMutableRawPointer, _ length: Int) -> Int {
    unsafe read(descriptor, buffer, length)
}

func system_write(_ descriptor: CInt, _ buffer: UnsafeRawPointer, _ length: Int) -> Int {
    unsafe write(descriptor, buffer, length)
}

func system_isatty(_ descriptor: CInt) -> CInt {
    isatty(descriptor)
}

func system_getrlimit(_ resource: __rlimit_resource_t, _ limit: UnsafeMutablePointer<rlimit>) -> CInt {
    unsafe getrlimit(resource, limit)
}

func system_setrlimit(_ resource: __rlimit_resource_t, _ limit: UnsafePointer<rlimit>) -> CInt {
    unsafe setrlimit(resource, limit)
}

func system_mallopt(_ parameter: CInt, _ value: CInt) -> CInt {
    qw_mallopt(parameter, value)
}
