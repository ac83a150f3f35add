// apns-bench: N pushes from APNsClient to a running mock-apns; prints pushes/s, p50/p99 latency and
// peak RSS (VmHWM). Also writes the inputs h2load needs for the same requests.
//
//   apns-bench --port P --ca CERT.pem --key AuthKey.p8 [--key-id KID] [--team-id T] [--bundle-id B]
//              [-n 200000] [-c 2] [-m 500] [--workers c*m] [--batch 1]
//   --batch K > 1: each worker sends K pushes at a time through the batch API (`send(_ pushes:)`), as
//   apns-sender sends a job; --workers then counts batches in flight (default 4, apns-sender's job limit).
//   apns-bench --write-h2load-inputs DIR --key AuthKey.p8 [...]   (payload.json, headers.txt, path.txt)
import APNs
import Contracts
import Foundation
import HTTP2
import Runtime
import Synchronization

func output(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("apns-bench: " + message + "\n").utf8))
    exit(2)
}

var parsed: [String: String] = [:]
var iterator = CommandLine.arguments.dropFirst().makeIterator()
while let argument = iterator.next() {
    guard argument.hasPrefix("-"), let value = iterator.next() else { fail("usage: see the header of main.swift") }
    parsed[String(argument.drop { $0 == "-" })] = value
}
let options = parsed
func option(_ name: String, _ fallback: String) -> String { options[name] ?? fallback }

let teamID = option("team-id", "DEVTEAM001")
let keyID = option("key-id", "DEVKEY0001")
let bundleID = option("bundle-id", "com.sightscreen.app")
guard let keyPath = options["key"] else { fail("--key AuthKey.p8 is required") }
let key: APNsSigningKey
do { key = try APNsSigningKey(contentsOfFile: keyPath) } catch { fail("\(error)") }

let timestamp = Int64(Date().timeIntervalSince1970)
let payload = #"{"aps":{"timestamp":\#(timestamp),"event":"update","content-state":{"score":"187/6","overs":"18.2","runRate":"RR: 10.20","batters":[{"name":"Rohit Sharma","runs":"45 (32)"},{"name":"Virat Kohli","runs":"61 (40)"}],"bowler":"Starc 3.2-0-31-2","lastBalls":["1","4","W","0","6","2"]},"stale-date":\#(timestamp + 900)}}"#
let tokenCount = 1000
let tokens = (0..<tokenCount).map { index in
    (0..<80).map { byte in String(format: "%02x", (index &* 31 &+ byte &* 7) & 0xff) }.joined()
}

if let directory = options["write-h2load-inputs"] {
    do {
        let provider = try APNsTokenProvider(teamID: teamID, keyID: keyID, key: key)
        let factory = APNsRequestFactory(bundleID: bundleID)
        let request = factory.request(
            APNsPush(payload: Array(payload.utf8), device: APNsDeviceToken(tokens[0], environment: .production), type: .liveActivity,
                     priority: 5, expiration: timestamp + 3600, apnsID: APNsID.derive(jobID: "h2load", token: tokens[0])),
            authorization: try provider.authorization())
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(payload.utf8).write(to: URL(fileURLWithPath: directory + "/payload.json"))
        // A dev-key token for a local benchmark only; the file is private to the benchmark's temp dir.
        let headers = request.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n") + "\n"
        try Data(headers.utf8).write(to: URL(fileURLWithPath: directory + "/headers.txt"))
        chmod(directory + "/headers.txt", 0o600)
        try Data(request.path.utf8).write(to: URL(fileURLWithPath: directory + "/path.txt"))
        exit(0)
    } catch {
        fail("\(error)")
    }
}

guard let port = Int(option("port", "")) else { fail("--port is required") }
let total = Int(option("n", "200000"))!
let connections = Int(option("c", "2"))!
let streams = Int(option("m", "500"))!
let batch = max(1, Int(option("batch", "1"))!)
let workers = Int(option("workers", batch > 1 ? "4" : String(connections * streams)))!
let caFile = options["ca"]

let client: APNsClient
do {
    client = try APNsClient(
        configuration: APNsClientConfiguration(
            teamID: teamID, keyID: keyID, signingKey: key, bundleID: bundleID, production: .local(port: port),
            sandbox: .local(port: port), caFile: caFile, connectionsPerHost: connections, maxStreamsPerConnection: streams,
            requestTimeout: .seconds(60)),
        logger: Logger(label: "apns-bench", minimumLevel: .warning))
} catch {
    fail("\(error)")
}

func peakRSSMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let kilobytes = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return kilobytes / 1024
    }
    return 0
}

let payloadBytes = Array(payload.utf8)
let expiration = timestamp + 3600

/// The next push index, shared by the workers.
final class SharedIndex: Sendable {
    let value = Atomic<Int>(0)
}

/// Sends `count` pushes with `workers` concurrent senders; returns latencies (µs) and failures.
func run(count: Int, label: String) async -> (seconds: Double, latencies: [Int], failures: [String: Int]) {
    let next = SharedIndex()
    let started = ContinuousClock.now
    let results = await withTaskGroup(of: ([Int], [String: Int]).self) { group in
        for _ in 0..<min(workers, count) {
            group.addTask {
                var latencies: [Int] = []
                var failures: [String: Int] = [:]
                while true {
                    let first = next.value.add(batch, ordering: .relaxed).oldValue
                    if first >= count { break }
                    let pushes = (first..<min(first + batch, count)).map { index in
                        let token = tokens[index % tokenCount]
                        return APNsPush(
                            payload: payloadBytes, device: APNsDeviceToken(token, environment: .production), type: .liveActivity,
                            priority: 5, expiration: expiration, apnsID: APNsID.derive(jobID: "\(label)-\(index)", token: token))
                    }
                    let outcomes = batch == 1 ? [await client.send(pushes[0])] : await client.send(pushes)
                    for outcome in outcomes {
                        let parts = outcome.latency.components
                        latencies.append(Int(parts.seconds) * 1_000_000 + Int(parts.attoseconds / 1_000_000_000_000))
                        if outcome.action != .delivered {
                            failures[outcome.reason?.rawValue ?? outcome.transportError ?? "status \(outcome.status ?? 0)", default: 0] += 1
                        }
                    }
                }
                return (latencies, failures)
            }
        }
        var all: [Int] = []
        all.reserveCapacity(count)
        var failures: [String: Int] = [:]
        for await (latencies, failed) in group {
            all.append(contentsOf: latencies)
            failures.merge(failed, uniquingKeysWith: +)
        }
        return (all, failures)
    }
    let elapsed = ContinuousClock.now - started
    return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, results.0, results.1)
}

// Warm-up: open the connections and let the allocator settle.
_ = await run(count: min(total / 10, 20_000), label: "warmup")
let result = await run(count: total, label: "bench")
let sorted = result.latencies.sorted()
func percentile(_ p: Double) -> Double {
    sorted.isEmpty ? 0 : Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1000
}
let rate = Double(total) / result.seconds
output(String(format: "apns-bench: %d pushes, %d connections x %d streams, %d workers", total, connections, streams, workers))
output(String(format: "  %.0f pushes/s in %.2f s; latency p50 %.2f ms, p99 %.2f ms; peak RSS (VmHWM) %.1f MB",
              rate, result.seconds, percentile(0.5), percentile(0.99), peakRSSMegabytes()))
if !result.failures.isEmpty { output("  not delivered: \(result.failures)") }
output(String(format: "RESULT rate=%.0f p50_ms=%.2f p99_ms=%.2f vmhwm_mb=%.1f failed=%d",
              rate, percentile(0.5), percentile(0.99), peakRSSMegabytes(), result.failures.values.reduce(0, +)))
client.shutdown()
