import Glibc
import HTTP2

extension Socket {
    /// Opens a non-blocking listening socket; returns it and the bound port.
    static func listen(host: String, port: Int, backlog: Int32 = 1024) throws(HTTP2Error) -> (fd: Int32, port: Int) {
        let addresses = try Socket.resolve(host: host, port: port)
        guard let address = addresses.first else { throw .bindFailed(host: host, port: port, message: "no address") }
        let fd = socket(Int32(address.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .bindFailed(host: host, port: port, message: Socket.errorText()) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var storage = address
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, Socket.length(of: address)) }
        }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else {
            let message = Socket.errorText()
            close(fd)
            throw .bindFailed(host: host, port: port, message: message)
        }
        var actual = sockaddr_storage()
        var size = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) }
        }
        let boundPort: Int = withUnsafeBytes(of: &actual) { raw in
            // sin_port and sin6_port sit at the same offset (2), network byte order.
            Int(UInt16(raw[2]) << 8 | UInt16(raw[3]))
        }
        return (fd, boundPort)
    }
}
