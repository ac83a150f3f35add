#if canImport(Glibc)
import Glibc
#endif

/// The non-blocking IPv4 listening socket every server thread accepts from. Owns the descriptor: it is
/// closed when the last thread lets go of it.
///
/// We bind ourselves so bind failures carry the exact errno text and the bound port is read back with
/// `getsockname` (port 0 asks the kernel for a free one).
final class ListeningSocket: Sendable {
    /// The descriptor (never closed while this object lives).
    let fd: Int32
    /// The bound port.
    let port: UInt16

    private init(fd: Int32, port: UInt16) {
        self.fd = fd
        self.port = port
    }

    deinit { close(fd) }

    /// Opens, binds and listens.
    static func open(host: String, port: UInt16, backlog: Int32) throws(HTTPServerError) -> ListeningSocket {
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
        guard bound == 0, listen(fd, backlog) == 0 else {
            let error = failure(host, port, bound == 0 ? "listen" : "bind")
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
        return ListeningSocket(fd: fd, port: UInt16(bigEndian: actual.sin_port))
    }

    private static func failure(_ host: String, _ port: UInt16, _ call: String) -> HTTPServerError {
        let text = String(cString: strerror(errno))
        return HTTPServerError(kind: .bindFailed, host: host, port: port, reason: "\(call): \(text)")
    }
}
