import Foundation
import Runtime
import SharedTestSupport
import Testing

@testable import HTTPServer

/// A bounded fuzzing pass of the HTTP layer itself: valid requests mutated (bytes flipped, inserted,
/// dropped; header lines duplicated; hostile framing headers spliced in; huge and empty pieces; CR, LF and
/// NUL where they do not belong), sent in random pieces, several at once. Seeded, so a failure names the
/// case that reproduces it. Every case must end within its time (no hang) without a 5xx other than 501 and
/// 505, and the server must still serve afterwards (no crash).
@Suite(.timeLimit(.minutes(3)))
struct HTTPFuzzTests {
    static let caseCount = 500
    static let concurrency = 12

    /// SplitMix64: small, seedable, the same sequence on every machine.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    static let seeds: [String] = [
        "GET /matches/7?q=1 HTTP/1.1\r\nHost: x\r\n\r\n",
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n{\"id\":1,\"name\":\"ab\"}",
        "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "8\r\n{\"id\":2,\r\nc\r\n\"name\":\"cd\"}\r\n0\r\n\r\n",
        "GET /matches/live HTTP/1.1\r\nHost: x\r\n\r\nGET /matches/8 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        "HEAD /matches/9 HTTP/1.0\r\n\r\n",
    ]

    static let hostileLines: [String] = [
        "Content-Length: 5", "Content-Length: -1", "Content-Length: 99999999999999999999999", "Content-Length: 0x10",
        "Content-Length: 5, 6", "Transfer-Encoding: chunked", "Transfer-Encoding: gzip, chunked", "Transfer-Encoding: identity",
        "Transfer-Encoding : chunked", "Host: y", " folded: value", "Expect: 100-continue", "Expect: nonsense",
        "Connection: close", "Connection: keep-alive, Upgrade", "X-Long: " + String(repeating: "L", count: 20_000), ":", "no-colon",
    ]

    static func mutate(_ seed: [UInt8], _ random: inout Generator) -> [UInt8] {
        var bytes = seed
        for _ in 0..<(1 + random.below(3)) {
            switch random.below(9) {
            case 0 where !bytes.isEmpty:  // flip a byte
                bytes[random.below(bytes.count)] ^= UInt8(truncatingIfNeeded: 1 << random.below(8))
            case 1:  // insert a troublesome byte
                let inserted: [UInt8] = [0x0D, 0x0A, 0x00, 0x20, 0x09, 0x3A, 0x7F, 0xFF, 0x2C]
                bytes.insert(inserted[random.below(inserted.count)], at: random.below(bytes.count + 1))
            case 2 where bytes.count > 2:  // drop a range
                let start = random.below(bytes.count - 1)
                bytes.removeSubrange(start..<min(bytes.count, start + 1 + random.below(12)))
            case 3:  // splice a hostile header line after the request line
                if let end = firstCRLF(bytes) {
                    let line = Array((hostileLines[random.below(hostileLines.count)] + "\r\n").utf8)
                    bytes.insert(contentsOf: line, at: end + 2)
                }
            case 4:  // duplicate a line
                if let end = firstCRLF(bytes), let next = firstCRLF(Array(bytes[(end + 2)...])) {
                    let line = Array(bytes[(end + 2)..<(end + 4 + next)])
                    bytes.insert(contentsOf: line, at: end + 2)
                }
            case 5:  // change the version
                let versions = ["HTTP/1.0", "HTTP/2.0", "HTTP/0.9", "HTTP/1.1 ", "http/1.1", "HTTP/1.12"]
                if let range = range(of: Array("HTTP/1.1".utf8), in: bytes) ?? range(of: Array("HTTP/1.0".utf8), in: bytes) {
                    bytes.replaceSubrange(range, with: Array(versions[random.below(versions.count)].utf8))
                }
            case 6:  // truncate
                bytes = Array(bytes.prefix(random.below(bytes.count + 1)))
            case 7:  // a huge piece
                bytes.insert(contentsOf: [UInt8](repeating: UInt8(ascii: "A"), count: 1 + random.below(40_000)), at: random.below(bytes.count + 1))
            default:  // pipeline another copy
                bytes += seed
            }
        }
        return bytes
    }

    static func firstCRLF(_ bytes: [UInt8]) -> Int? {
        range(of: [0x0D, 0x0A], in: bytes)?.lowerBound
    }

    static func range(of needle: [UInt8], in bytes: [UInt8]) -> Range<Int>? {
        guard bytes.count >= needle.count else { return nil }
        for start in 0...(bytes.count - needle.count) where bytes[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }

    /// `bytes` in 1–6 pieces, some of them empty.
    static func split(_ bytes: [UInt8], _ random: inout Generator) -> [[UInt8]] {
        var cuts = (0..<random.below(6)).map { _ in random.below(bytes.count + 1) }.sorted()
        cuts.append(bytes.count)
        var pieces: [[UInt8]] = []
        var start = 0
        for cut in cuts {
            pieces.append(Array(bytes[start..<cut]))
            start = cut
        }
        return pieces
    }

    /// Every status code answered in `response` (the first, and any pipelined after it).
    static func statuses(_ response: WireResponse) -> [Int] {
        var found = [response.status]
        let text = response.text
        var search = text.startIndex
        while let range = text.range(of: "HTTP/1.1 ", range: search..<text.endIndex) {
            if let code = Int(text[range.upperBound...].prefix(3)) { found.append(code) }
            search = range.upperBound
        }
        return found
    }

    /// Sends one case; says whether it was answered and what was wrong.
    static func run(_ index: Int, _ pieces: [[UInt8]], port: UInt16) async -> (answered: Bool, failures: [String]) {
        let started = ContinuousClock.now
        let response = try? await RawHTTPClient.raw(port: port, pieces: pieces, pause: .microseconds(300), readToEnd: true)
        let elapsed = ContinuousClock.now - started
        var failures: [String] = []
        if elapsed > .seconds(8) { failures.append("case \(index): took \(elapsed)") }
        guard let response else { return (false, failures) }  // closed without an answer (an empty or idle connection)
        for status in statuses(response) where status >= 500 && status != 501 && status != 505 {
            let sent = String(decoding: pieces.joined().prefix(160), as: UTF8.self).debugDescription
            failures.append("case \(index): \(status) for \(sent)")
        }
        return (true, failures)
    }

    @Test func mutatedRequestsNeverGetA5xxNorHangNorCrash() async throws {
        var router = Router()
        router.get("/matches/:matchId") { request in .json(["matchId": try request.parameter("matchId")]) }
        router.get("/matches/live") { _ in .json(["live": true]) }
        router.post("/echo") { request in .json(try request.decode(HTTPServerTests.Echo.self)) }
        let registry = MetricsRegistry()
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                port: 0, threadCount: 2, maxBodyBytes: 4096, connectionTimeout: .milliseconds(500),
                headerTimeout: .milliseconds(500), bodyTimeout: .milliseconds(500)),
            router: router, logger: HTTPServerTests.quietLogger, metrics: registry)
        try server.start()
        defer { server.stopInBackground() }

        var random = Generator(state: 0x5167_6874_5363_7265)
        var cases: [(index: Int, pieces: [[UInt8]])] = []
        for index in 0..<Self.caseCount {
            let seed = Array(Self.seeds[random.below(Self.seeds.count)].utf8)
            cases.append((index, Self.split(Self.mutate(seed, &random), &random)))
        }
        let port = server.port
        var failures: [String] = []
        var answered = 0
        await withTaskGroup(of: (answered: Bool, failures: [String]).self) { group in
            var pending = cases.makeIterator()
            for _ in 0..<Self.concurrency {
                guard let next = pending.next() else { break }
                group.addTask { await Self.run(next.index, next.pieces, port: port) }
            }
            while let result = await group.next() {
                if result.answered { answered += 1 }
                failures += result.failures
                if let next = pending.next() {
                    group.addTask { await Self.run(next.index, next.pieces, port: port) }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10))")
        #expect(answered > Self.caseCount / 2, "most cases got an answer")
        let after = try await RawHTTPClient.request(port: port, method: "GET", path: "/matches/live")
        #expect(after.status == 200, "the server still serves after the fuzzing pass")
        let refusedReasons = registry.render().split(separator: "\n").filter { $0.hasPrefix("http_rejected_requests_total{") }
            .filter { (Double($0.split(separator: " ").last ?? "") ?? 0) > 0 }
        #expect(refusedReasons.count >= 6, "the pass exercised many refusal reasons: \(refusedReasons)")
    }
}
