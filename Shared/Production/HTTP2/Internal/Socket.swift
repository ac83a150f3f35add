import Glibc

/// Non-blocking TCP socket helpers (IPv4 and IPv6).
package enum Socket {
    /// Resolves `host` (numeric or a name; names are looked up with getaddrinfo) to socket addresses.
    package static func resolve(host: String, port: Int) throws(HTTP2Error) -> [sockaddr_storage] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &result)
        guard status == 0, let first = result else {
            throw .connectFailed(host: host, port: port, message: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(first) }
        var addresses: [sockaddr_storage] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) { raw in
                raw.copyMemory(from: UnsafeRawBufferPointer(start: info.pointee.ai_addr, count: Int(info.pointee.ai_addrlen)))
            }
            addresses.append(storage)
            cursor = info.pointee.ai_next
        }
        return addresses
    }

    package static func length(of address: sockaddr_storage) -> socklen_t {
        socklen_t(address.ss_family == sa_family_t(AF_INET6) ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
    }

    /// Starts a non-blocking connect; returns the descriptor (connect may still be in progress).
    static func startConnect(to address: sockaddr_storage, host: String, port: Int) throws(HTTP2Error) -> Int32 {
        let fd = socket(Int32(address.ss_family), Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .connectFailed(host: host, port: port, message: errorText()) }
        setNoDelay(fd)
        var storage = address
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length(of: address)) }
        }
        if result != 0 && errno != EINPROGRESS {
            let message = errorText()
            close(fd)
            throw .connectFailed(host: host, port: port, message: message)
        }
        return fd
    }

    /// The pending error of a connecting socket (0 when connected).
    static func pendingError(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &size)
        return value
    }

    package static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    package static func errorText() -> String { String(cString: strerror(errno)) }
}
