import Foundation

/// The 127.0.0.1 ports of the dev stack's processes.
public struct DevPorts: Sendable, Equatable {
    public var api: Int = 8080
    public var poller: Int = 8081
    public var detector: Int = 8082
    public var coordinator: Int = 8083
    public var sender: Int = 8084
    public var fakeSportmonks: Int = 8090
    public var mockAPNs: Int = 2197
    /// mock-apns's sandbox channel management listener (Apple's is 2195), open when broadcast channels are on.
    public var mockAPNsManage: Int = 2198
    public var deviceSimulator: Int = 8095
    /// The api's metrics listener (`METRICS_PORT`; never its public port).
    public var apiMetrics: Int = 9464
    /// Prometheus, when the stack runs one (`sightscreen dev --prometheus`, the monitoring tests).
    public var prometheus: Int = 9090

    /// The documented defaults (README, E2E-INTERFACE.md).
    public init() {}

    /// Eleven ports that were free a moment ago (tests: never clash with a running demo).
    public static func free() throws(DevStackError) -> DevPorts {
        var ports = DevPorts()
        var taken = Set<Int>()
        func next() throws(DevStackError) -> Int {
            for _ in 0..<20 {
                let port = try freePort()
                if taken.insert(port).inserted { return port }
            }
            throw .invalidOption("no free port found")
        }
        ports.api = try next()
        ports.poller = try next()
        ports.detector = try next()
        ports.coordinator = try next()
        ports.sender = try next()
        ports.fakeSportmonks = try next()
        ports.mockAPNs = try next()
        ports.mockAPNsManage = try next()
        ports.deviceSimulator = try next()
        ports.apiMetrics = try next()
        ports.prometheus = try next()
        return ports
    }

    /// Binds 127.0.0.1:0, reads the port the kernel chose, closes the socket.
    static func freePort() throws(DevStackError) -> Int {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw .invalidOption("socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw .invalidOption("bind() failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw .invalidOption("getsockname() failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
