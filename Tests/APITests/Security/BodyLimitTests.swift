import SharedTestSupport
import Foundation
import Testing

/// Huge and deeply nested bodies against the real api process: refused (413 / 400) without the
/// process's peak memory growing by as much as one copy of the largest body.
@Suite("Huge and deeply nested bodies")
struct BodyLimitTests {
    /// Allowed growth of the api's VmHWM (peak RSS) over the whole barrage. The largest body is 10 MB
    /// and it is sent three times: buffering it even once would add ≥ 10 MB; refusing it by its
    /// Content-Length (or discarding a chunked upload) needs only the 16 KB limit plus buffers. 8 MB
    /// leaves room for allocator noise from the warm-up-sized requests and nothing more.
    static let allowedGrowthKB = 8 * 1024

    @Test func hugeAndNestedBodiesAreRefusedWithoutMemoryBlowup() async throws {
        let auth = try await DevAuth.make()
        let (api, port) = try await auth.startAPI()
        let token = try await auth.token("body-limit-\(UUID().uuidString.prefix(8))")
        let headers = ["Authorization": "Bearer \(token)", "Content-Type": "application/json"]
        func post(_ body: [UInt8], path: String = "/user/follow/match") async throws -> WireResponse {
            try await RawHTTPClient.request(port: port, method: "POST", path: path, headers: headers, body: body)
        }
        // Warm-up: the same routes with small bodies (connections, caches, thread stacks).
        for _ in 0..<20 {
            _ = try await post(Array(#"{"matchId":"warm-up"}"#.utf8))
            _ = try await post(Array("[[[[[[[[]]]]]]]]".utf8))
            _ = try await post(Array(String(repeating: "x", count: 16_000).utf8))
        }
        let before = try #require(api.memoryKB("VmHWM"))

        let limit = 16 * 1024
        for size in [limit + 1, 17_000, 1_000_000, 10 * 1024 * 1024] {
            let response = try await post([UInt8](repeating: UInt8(ascii: " "), count: size))
            #expect(response.status == 413, "\(size)-byte body")
            #expect(response.json["error"] as? String == "payload_too_large", "\(size)-byte body")
        }
        for path in ["/devices", "/matches/m1/activity-token"] {
            #expect(try await post([UInt8](repeating: UInt8(ascii: "{"), count: 10 * 1024 * 1024), path: path).status == 413, "\(path)")
        }
        // 100,000 levels of `[` (100 KB): over the limit.
        #expect(try await post([UInt8](repeating: UInt8(ascii: "["), count: 100_000)).status == 413)
        // As deep as fits under the limit (16,000 levels, arrays and objects): 400, the parser does not recurse unbounded.
        let deepArrays = try await post([UInt8](repeating: UInt8(ascii: "["), count: 16_000))
        #expect(deepArrays.status == 400, "16,000 × [ answered \(deepArrays.status)")
        let deepObjects = try await post(Array(String(repeating: #"{"a":"#, count: 3_000).utf8))
        #expect(deepObjects.status == 400, "3,000 nested objects answered \(deepObjects.status)")
        let balanced = try await post(Array((String(repeating: "[", count: 8_000) + String(repeating: "]", count: 8_000)).utf8))
        #expect(balanced.status == 400, "8,000 balanced levels answered \(balanced.status)")
        // Chunked upload without a Content-Length: 10 MB is discarded or the connection closed, never buffered.
        var chunked = Array("POST /user/follow/match HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        let chunk = [UInt8](repeating: UInt8(ascii: "["), count: 65_536)
        for _ in 0..<160 { chunked += Array("10000\r\n".utf8) + chunk + Array("\r\n".utf8) }
        chunked += Array("0\r\n\r\n".utf8)
        do {
            let response = try await RawHTTPClient.raw(port: port, bytes: chunked)
            #expect([400, 413].contains(response.status), "chunked 10 MB answered \(response.status)")
        } catch {
            // The server closed the connection without an answer: acceptable for a body far over the limit.
        }

        #expect(api.isRunning, "the api survived")
        #expect(try await post(Array(#"{"matchId":"after-the-barrage"}"#.utf8)).status < 500)
        let after = try #require(api.memoryKB("VmHWM"))
        let growth = after - before
        print("api VmHWM before \(before) kB, after \(after) kB, growth \(growth) kB (bound \(Self.allowedGrowthKB) kB)")
        #expect(growth < Self.allowedGrowthKB, "api peak RSS grew by \(growth) kB")
        await api.stop()
        try? FileManager.default.removeItem(at: auth.directory)
    }
}
