import SharedTestSupport
import Contracts
import Foundation
import Spawning
import Synchronization
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
import Runtime
#endif

/// The `fake-sportmonks` executable itself (built next to the test bundle by `swift build --build-tests`).
@Suite struct ExecutableTests {
    static func executable() throws -> URL {
        var candidate = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        while candidate.path != "/" {
            let url = candidate.appendingPathComponent("fake-sportmonks")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            candidate = candidate.deletingLastPathComponent()
        }
        throw Missing()
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String { "fake-sportmonks is not built: run `swift build --build-tests`" }
    }

    @Test func helpSaysSpeedIsDeliveriesPerSecond() async throws {
        let (status, output) = try await ChildProcess.run(try Self.executable(), ["--help"])
        let text = String(decoding: output, as: UTF8.self)
        #expect(status == 0)
        #expect(text.contains("DELIVERIES PER SECOND") && text.contains("--live") && text.contains("/admin/faults"))
    }

    @Test func servesLivescoresOverHTTPAndStopsOnSIGTERM() async throws {
        let offset = Int.random(in: 1_000...900_000) * 10_000_000
        let process = try Subprocess(
            executable: try Self.executable().path,
            arguments: ["--matches", DataDirectory.cricsheet.path, "--port", "0", "--live", "1144504,1304076",
                        "--speed", "1", "--id-offset", String(offset), "--api-token", "t0ken"],
            environment: ChildEnvironment.supervised(), standardError: .pipe)
        let errors = process.standardError!
        let log = LockedValue("")
        errors.readabilityHandler = { handle in
            let chunk = String(decoding: handle.availableData, as: UTF8.self)
            log.withLock { $0 += chunk }
        }
        defer { process.terminate() }
        var base: String?
        let deadline = ContinuousClock.now + .seconds(60)
        while base == nil, ContinuousClock.now < deadline, process.isRunning {
            let text = log.withLock { $0 }
            if let range = text.range(of: #""url":"http://127.0.0.1:"#) {
                base = String(text[range.upperBound...].prefix { $0.isNumber }).isEmpty ? nil
                    : "http://127.0.0.1:" + String(text[range.upperBound...].prefix { $0.isNumber })
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let url = try #require(base, "no 'serving' log line: \(log.withLock { $0 })")
        try await Task.sleep(for: .milliseconds(300))
        let (data, response) = try await URLSession.shared.dataIgnoringCancellation(for: URLRequest(url: URL(string: "\(url)/api/v2.0/livescores?api_token=t0ken&include=runs")!))
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let reply = try JSONDecoder().decode(JSONValue.self, from: data)
        guard case .array(let items)? = reply["data"] else { Issue.record("no data"); return }
        let ids = Set(items.compactMap { item -> Int? in if case .int(let id)? = item["id"] { id } else { nil } })
        #expect(ids == [1144504 + offset, 1304076 + offset], "both --live matches are live at once")
        process.terminate()
        let ended = await process.waitForExit(timeout: .seconds(30))
        #expect(ended == .exited(0))
        errors.readabilityHandler = nil
    }
}
