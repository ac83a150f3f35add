import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
import Runtime
#endif

/// A free TCP port on 127.0.0.1 (bound once, then released).
public enum FreePort {
    public static func pick() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return UInt16(bigEndian: address.sin_port)
    }
}

/// GET against a local server, retrying connection failures until `waitUpTo` passes.
public enum LocalHTTP {
    public struct Answer {
        public let status: Int
        public let body: String
    }

    public static func get(port: UInt16, path: String, waitUpTo: Duration = .seconds(5)) async throws -> Answer {
        let url = URL(string: "http://127.0.0.1:\(port)\(path)")!
        let deadline = ContinuousClock.now + waitUpTo
        while true {
            do {
                let (data, response) = try await URLSession.shared.dataIgnoringCancellation(for: URLRequest(url: url))
                return Answer(status: (response as? HTTPURLResponse)?.statusCode ?? 0, body: String(decoding: data, as: UTF8.self))
            } catch {
                if ContinuousClock.now >= deadline { throw error }
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Polls `path` until it answers `status` or `waitUpTo` passes; returns the last answer.
    public static func waitForStatus(_ status: Int, port: UInt16, path: String, waitUpTo: Duration) async throws -> Answer {
        let deadline = ContinuousClock.now + waitUpTo
        var answer = try await get(port: port, path: path, waitUpTo: waitUpTo)
        while answer.status != status && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            answer = try await get(port: port, path: path, waitUpTo: waitUpTo)
        }
        return answer
    }
}
