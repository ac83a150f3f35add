import Foundation
import Runtime

#if canImport(Glibc)
import Glibc
#endif

/// A parsed HTTP/1.1 answer as seen on the wire.
public struct WireResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]
    public var text: String { String(decoding: body, as: UTF8.self) }

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body parsed as a JSON object (empty when it is not one).
    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
    }
}

public struct ClientError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

/// A tiny blocking HTTP/1.1 client over a raw TCP socket, run on its own thread (never on the cooperative
/// pool or GCD). Each call opens one connection, sends the given bytes and reads until the server closes or the
/// announced body is complete. Reads time out after 10 s.
public enum RawHTTPClient {
    /// Sends a request built from parts (`Connection: close`; `Content-Type: application/json` with a body
    /// unless `headers` name one).
    public static func request(
        port: UInt16, method: String, path: String, headers: [String: String] = [:], body: [UInt8] = []
    ) async throws -> WireResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        // A body is JSON unless the caller says otherwise (the server answers 415 to any other type).
        if !body.isEmpty, !headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
            head += "Content-Type: application/json\r\n"
        }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return try await raw(port: port, bytes: Array(head.utf8) + body)
    }

    /// Sends `bytes` verbatim and parses the (first) answer; with `readToEnd` the body holds everything
    /// read until the server closed the connection.
    public static func raw(port: UInt16, bytes: [UInt8], readToEnd: Bool = false) async throws -> WireResponse {
        try await raw(port: port, pieces: [bytes], pause: .zero, readToEnd: readToEnd)
    }

    /// Sends `pieces` one after another with `pause` between them (a client that splits or dribbles its
    /// request), then reads as `raw(port:bytes:readToEnd:)` does.
    public static func raw(
        port: UInt16, pieces: [[UInt8]], pause: Duration, readToEnd: Bool = false
    ) async throws -> WireResponse {
        try await withCheckedThrowingContinuation { continuation in
            // A dedicated thread: blocking GCD workers could starve the pool that runs the server's
            // handlers (on Linux the Swift task pool is built on the same GCD thread pool).
            let thread = Thread {
                continuation.resume(with: Result {
                    try exchange(port: port, pieces: pieces, pause: pause, readToEnd: readToEnd)
                })
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
    }

    /// A client that pipelines and never reads: sends `request` again and again (a small receive buffer, so the
    /// answers back up at once) until `limit` bytes went out or one send stalls for `stall`. Returns the bytes the
    /// server took: well under `limit` when it stops reading while its answers are not read.
    public static func bytesTakenWithoutReading(port: UInt16, request: [UInt8], limit: Int, stall: Duration) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result {
                    let fd = try connected(port: port, timeout: stall, receiveBuffer: 4096)
                    defer { close(fd) }
                    var total = 0
                    var burst: [UInt8] = []
                    while burst.count < 64 * 1024 { burst += request }
                    while total < limit {
                        let sent = burst.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        if sent <= 0 { break }
                        total += sent
                        if sent < burst.count { burst = Array(burst[sent...] + burst[..<sent]) }
                    }
                    return total
                })
            }
            thread.stackSize = 256 * 1024
            thread.start()
        }
    }

    /// A connected blocking socket with send and receive timeouts (and a receive buffer size when given).
    private static func connected(port: UInt16, timeout: Duration, receiveBuffer: Int32? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket failed") }
        let seconds = timeout.components.seconds
        var time = timeval(tv_sec: Int(seconds), tv_usec: Int(timeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            throw ClientError(description: "connect to \(port) failed: errno \(errno)")
        }
        return fd
    }

    private static func exchange(port: UInt16, pieces: [[UInt8]], pause: Duration, readToEnd: Bool) throws -> WireResponse {
        let fd = try connected(port: port, timeout: .seconds(10))
        defer { close(fd) }
        // A send may fail once the server answered early (413) and closed; the answer is still readable.
        sending: for (index, bytes) in pieces.enumerated() {
            if index > 0, pause > .zero { usleep(UInt32(clamping: pause.nanoseconds / 1000)) }
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { break sending }
                offset += sent
            }
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received.append(contentsOf: chunk[0..<count])
            if !readToEnd, let response = parse(received), isComplete(response, received) { return response }
        }
        guard let response = parse(received) else {
            throw ClientError(description: "no HTTP answer (\(received.count) bytes, errno \(errno))")
        }
        return response
    }

    static func completeAnswer(_ bytes: [UInt8]) -> WireResponse? {
        guard let response = parse(bytes), isComplete(response, bytes) else { return nil }
        return response
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index + 4
        }
        return nil
    }

    private static func parse(_ bytes: [UInt8]) -> WireResponse? {
        guard let end = headEnd(bytes) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard let statusLine = lines.first, statusLine.split(separator: " ").count >= 2,
            let status = Int(statusLine.split(separator: " ")[1])
        else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return WireResponse(status: status, headers: headers, body: Array(bytes[end...]))
    }

    private static func isComplete(_ response: WireResponse, _ bytes: [UInt8]) -> Bool {
        guard let length = response.headers["content-length"].flatMap(Int.init) else { return false }
        return response.body.count >= length
    }
}

extension WireResponse {
    /// The answer in `bytes` once its head and its Content-Length body are complete (for reads on
    /// a keep-alive connection, where the server does not close after answering).
    public static func parseComplete(_ bytes: [UInt8]) -> WireResponse? {
        RawHTTPClient.completeAnswer(bytes)
    }
}
