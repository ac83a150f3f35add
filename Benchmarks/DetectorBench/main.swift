// Rates are per second of this thread's CPU time (the machine is shared); the pipeline also shows wall time.
//
// detector-bench: replays Cricsheet matches ball by ball as `sportmonks.fixtures` messages and times the
// detector on them. Prints snapshots processed per second for
//   - detect: MatchDetector.process on an already decoded fixture (the pure core);
//   - decode: FastJSONDecoder vs Foundation's JSONDecoder on the message alone (typed straight to the fixture);
//   - pipeline: SnapshotDecoding.decode (one typed pass; MessageCodec on failure) → BallChains (the whole
//     fixture rebuilt from the chain of snapshots) → process → MessageCodec.encode of every MatchBusEvent (what
//     the service does per message, minus Kafka and PostgreSQL);
//   - pipeline with per-match ball cache: the same with SnapshotReuseCaches (what the detector service runs):
//     balls whose JSON did not change since the match's previous snapshot are not decoded again.
//
// The messages are what the poller publishes: FixtureSnapshotPager pages from the match's cursor (only the balls
// new or changed since the previous poll). `--only sizes` prints, per match, the largest sportmonks.fixtures
// message as a whole fixture (before issue 15) and as pages, and the largest match.events message.
//
//   detector-bench [--data DIR] [--matches 1304076,1322276] [--rounds 3] [--every N] [--only fastjson|sizes]
//   (--every N keeps every Nth snapshot, for profiling under valgrind; --only fastjson times only that decode,
//   --only cached only the pipeline with the ball cache, --only detect only MatchDetector.process)
import Contracts
import CricsheetReplay
import Cricket
import Detection
import FastJSON
import Foundation
import Synchronization
import Runtime

func output(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("detector-bench: " + message + "\n").utf8))
    exit(2)
}

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let name = arguments.next() {
    guard name.hasPrefix("--"), let value = arguments.next() else { fail("usage: see the header of main.swift") }
    options[String(name.dropFirst(2))] = value
}
let dataDirectory = options["data"] ?? ProcessInfo.processInfo.environment["CRICSHEET_DIR"] ?? "../shared/data/cricsheet"
let matchIds = (options["matches"] ?? "1304076,1322276,1359487,1415755").split(separator: ",").map(String.init)
let rounds = Int(options["rounds"] ?? "3") ?? 3
let every = max(1, Int(options["every"] ?? "1") ?? 1)
let onlyFastJSON = options["only"] == "fastjson"

struct Prepared {
    var matchId: String
    var fixtures: [SportMonksFixture]
    /// Per poll, its pages.
    var messages: [[[UInt8]]]
    var polledAt: [Int64]
    /// The largest whole-fixture message (the pre-issue-15 shape: the fixture with every ball in one message).
    var largestWhole = 0
}

var prepared: [Prepared] = []
for id in matchIds {
    let url = URL(fileURLWithPath: dataDirectory).appendingPathComponent("\(id).json")
    let match: CricsheetMatch
    do { match = try CricsheetMatch.load(contentsOf: url) } catch { fail("\(url.path): \(error)") }
    let builder = SportMonksFixtureBuilder(match: match)
    var item = Prepared(matchId: id, fixtures: [], messages: [], polledAt: [])
    var cursor = FixtureFeedCursor()
    let renderer = FixtureJSONRenderer()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    for (index, position) in match.replayTimeline().enumerated() where index % every == 0 {
        let fixture = builder.fixture(at: position)
        let polledAt = 1_800_000_000_000 + Int64(index) * 40_000
        let json: JSONValue
        do { json = try renderer.json(fixture) } catch { fail("\(error)") }
        do {
            let plan = try FixtureSnapshotPager.plan(matchId: id, polledAt: polledAt, fixture: json, after: cursor)
            cursor = plan.cursor
            item.messages.append(plan.encoded)
        } catch { fail("\(error)") }
        item.fixtures.append(fixture)
        item.polledAt.append(polledAt)
    }
    // The old message, {"fixture": whole, "matchId", "polledAt", "schema"}, was largest at the last snapshot.
    if let last = item.fixtures.last {
        do { item.largestWhole = try encoder.encode(try renderer.json(last)).count + 60 + id.utf8.count } catch { fail("\(error)") }
    }
    prepared.append(item)
}
let snapshots = prepared.reduce(0) { $0 + $1.fixtures.count }
let pages = prepared.flatMap(\.messages).flatMap { $0 }
let averageBytes = pages.reduce(0) { $0 + $1.count } / max(1, pages.count)
output("matches \(matchIds.joined(separator: ",")): \(snapshots) snapshots in \(pages.count) messages, average message \(averageBytes) bytes")

/// The typed shape of a `sportmonks.fixtures` message, as SnapshotDecoding reads it.
struct BenchSnapshot: Decodable {
    var schema: Int
    var matchId: String
    var polledAt: Int64
    var fixture: SportMonksFixture
    var balls: [SportMonksBall]?
}

let detector = MatchDetector()
/// This thread's CPU time in seconds: rates stay meaningful when other processes share the cores.
func cpuSeconds() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Runs `body`; returns its CPU seconds, its result, and its wall-clock seconds.
func time(_ body: () -> Int) -> (Double, Int, wall: Double) {
    let start = DispatchTime.now().uptimeNanoseconds
    let cpuStart = cpuSeconds()
    let events = body()
    return (cpuSeconds() - cpuStart, events, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
}

@MainActor func decodeWithFastJSON() -> Int {
    var balls = 0
    for item in prepared {
        for bytes in item.messages.joined() {
            do { balls += try FastJSONDecoder().decode(BenchSnapshot.self, from: bytes).balls?.count ?? 0 }
            catch { fail("FastJSON: \(error)") }
        }
    }
    return balls
}

/// decode → process → encode of every message; with `cached`, one SnapshotReuseCaches as the service uses.
/// Returns the events produced.
@MainActor func pipeline(cached: Bool) -> Int {
    let caches = SnapshotReuseCaches()
    let chains = BallChains()
    var events = 0
    for item in prepared {
        var state: DetectorState?
        let cache = cached ? caches.cache(for: item.matchId) : nil
        for bytes in item.messages.joined() {
            do {
                let decoded = try SnapshotDecoding.decode(bytes, reusing: cache)
                guard case .assembled(let fixture) = chains.apply(decoded) else { continue }
                let outcome = detector.process(fixture: fixture, matchId: decoded.matchId, polledAt: decoded.polledAt, state: state)
                for event in outcome.events {
                    let encoded = try MessageCodec.encode(event)
                    largestEvent.withLock { $0[item.matchId] = max($0[item.matchId] ?? 0, encoded.count) }
                    events += 1
                }
                state = outcome.state
            } catch { fail("\(error)") }
        }
    }
    return events
}

@MainActor func pipelineWithCache() -> Int { pipeline(cached: true) }

/// MatchDetector.process over the already decoded fixtures; returns the events.
@MainActor func detectOnly() -> Int {
    var events = 0
    for item in prepared {
        var state: DetectorState?
        for index in item.fixtures.indices {
            let outcome = detector.process(fixture: item.fixtures[index], matchId: item.matchId,
                                           polledAt: item.polledAt[index], state: state)
            events += outcome.events.count
            state = outcome.state
        }
    }
    return events
}

/// The largest match.events message per match, seen by `pipeline`.
let largestEvent = LockedValue<[String: Int]>([:])

if options["only"] == "sizes" {
    _ = pipeline(cached: true)
    for item in prepared {
        let largestPage = item.messages.joined().map(\.count).max() ?? 0
        let pagesPerPoll = item.messages.map(\.count).max() ?? 0
        output("match \(item.matchId): \(item.fixtures.last?.balls?.count ?? 0) balls; sportmonks.fixtures largest message "
               + "\(item.largestWhole) bytes as a whole fixture, \(largestPage) bytes as pages (bound \(FixtureSnapshot.maximumBytes), "
               + "at most \(pagesPerPoll) per poll); match.events largest \(largestEvent.withLock { $0[item.matchId] ?? 0 }) bytes")
    }
    exit(0)
}

if options["only"] == "detect" {
    for round in 1...rounds {
        let (seconds, events, _) = time(detectOnly)
        output(String(format: "round %d: detect %.0f snapshots/s CPU time (%d events)", round, Double(snapshots) / seconds, events))
    }
    exit(0)
}

if options["only"] == "cached" {
    for round in 1...rounds {
        let (seconds, events, wall) = time(pipelineWithCache)
        output(String(format: "round %d: pipeline with per-match ball cache %.0f snapshots/s CPU time (%d events; %.0f/s wall)",
                      round, Double(snapshots) / seconds, events, Double(snapshots) / wall))
    }
    exit(0)
}

if onlyFastJSON {
    for round in 1...rounds {
        let (parseSeconds, _, _) = time {
            var count = 0
            for item in prepared {
                for bytes in item.messages.joined() {
                    do { try FastJSONDecoder().validate(bytes); count += 1 } catch { fail("FastJSON: \(error)") }
                }
            }
            return count
        }
        output(String(format: "round %d: FastJSON parse alone %.0f snapshots/s CPU time", round, Double(snapshots) / parseSeconds))
        let (seconds, _, wall) = time(decodeWithFastJSON)
        output(String(format: "round %d: FastJSON decode %.0f snapshots/s CPU time (%.0f/s wall)", round,
                      Double(snapshots) / seconds, Double(snapshots) / wall))
    }
    exit(0)
}

for round in 1...rounds {
    let (detectSeconds, detectEvents, _) = time(detectOnly)
    let (pipelineSeconds, pipelineEvents, pipelineWall) = time { pipeline(cached: false) }
    let (cachedSeconds, cachedEvents, cachedWall) = time(pipelineWithCache)
    let (fastSeconds, _, _) = time(decodeWithFastJSON)
    let (foundationSeconds, _, _) = time {
        var balls = 0
        for item in prepared {
            for bytes in item.messages.joined() {
                do { balls += try JSONDecoder().decode(BenchSnapshot.self, from: Data(bytes)).balls?.count ?? 0 }
                catch { fail("JSONDecoder: \(error)") }
            }
        }
        return balls
    }
    let detectRate = Double(snapshots) / detectSeconds
    let pipelineRate = Double(snapshots) / pipelineSeconds
    output(String(format: "round %d (snapshots/s of CPU time): detect %.0f (%d events)  pipeline %.0f (%d events; "
                  + "%.0f/s wall)  pipeline with per-match ball cache %.0f (%d events; %.0f/s wall)  "
                  + "decode alone: FastJSON %.0f, JSONDecoder %.0f",
                  round, detectRate, detectEvents, pipelineRate, pipelineEvents, Double(snapshots) / pipelineWall,
                  Double(snapshots) / cachedSeconds, cachedEvents, Double(snapshots) / cachedWall,
                  Double(snapshots) / fastSeconds, Double(snapshots) / foundationSeconds))
}
