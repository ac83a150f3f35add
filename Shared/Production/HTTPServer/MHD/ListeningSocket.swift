#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Creates the non-blocking IPv4 listening socket that libmicrohttpd then owns.
///
/// We bind ourselves (rather than `MHD_OPTION_SOCK_ADDR`) so bind failures carry the exact errno text and
/// the bound port can be read with `getsockname` (libmicrohttpd's `MHD_get_daemon_info` is variadic and
/// cannot be called from Swift).
enum ListeningSocket {
    /// Opens, binds and listens; returns the descriptor and the actually bound port.
    static func open(host: String, port: UInt16, backlog: Int32) throws(HTTPServerError) -> (fd: Int32, port: UInt16) {
        let address = host == "localhost" ? "127.0.0.1" : host
        var sin = sockaddr_in()
        sin.sin_family = sa_family_t(AF_INET)
        sin.sin_port = port.bigEndian
        guard inet_pton(AF_INET, address, &sin.sin_addr) == 1 else {
            throw HTTPServerError(kind: .invalidHost, host: host, port: port, reason: "not an IPv4 address")
        }
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { throw failure(host, port, "socket") }
        var yes: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &sin) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let error = failure(host, port, "bind")
            close(fd)
            throw error
        }
        guard listen(fd, backlog) == 0 else {
            let error = failure(host, port, "listen")
            close(fd)
            throw error
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let error = failure(host, port, "getsockname")
            close(fd)
            throw error
        }
        return (fd, UInt16(bigEndian: actual.sin_port))
    }

    private static func failure(_ host: String, _ port: UInt16, _ call: String) -> HTTPServerError {
        let text = String(cString: strerror(errno))
        return HTTPServerError(kind: .bindFailed, host: host, port: port, reason: "\(call): \(text)")
    }
}
