// detector-bench: replays Cricsheet matches ball by ball as `sportmonks.fixtures` messages and times the
// detector on them. Prints snapshots processed per second for
//   - detect: MatchDetector.process on an already decoded fixture (the pure core);
//   - pipeline: SnapshotDecoding.decode (one typed pass; MessageCodec on failure) → process → MessageCodec.encode
//     of every MatchBusEvent (what the service does per message, minus Kafka and PostgreSQL).
//
//   detector-bench [--data DIR] [--matches 1304076,1322276] [--rounds 3]
import Contracts
import CricsheetReplay
import Cricket
import Detection
import Foundation

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

struct Prepared {
    var matchId: String
    var fixtures: [SportMonksFixture]
    var messages: [[UInt8]]
    var polledAt: [Int64]
}

var prepared: [Prepared] = []
for id in matchIds {
    let url = URL(fileURLWithPath: dataDirectory).appendingPathComponent("\(id).json")
    let match: CricsheetMatch
    do { match = try CricsheetMatch.load(contentsOf: url) } catch { fail("\(url.path): \(error)") }
    let builder = SportMonksFixtureBuilder(match: match)
    var item = Prepared(matchId: id, fixtures: [], messages: [], polledAt: [])
    for (index, position) in match.replayTimeline().enumerated() {
        let fixture = builder.fixture(at: position)
        let polledAt = 1_800_000_000_000 + Int64(index) * 40_000
        let json: JSONValue
        do { json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(fixture)) } catch { fail("\(error)") }
        let message = FixtureSnapshot(matchId: id, polledAt: polledAt, fixture: json)
        do { item.messages.append(try MessageCodec.encode(message)) } catch { fail("\(error)") }
        item.fixtures.append(fixture)
        item.polledAt.append(polledAt)
    }
    prepared.append(item)
}
let snapshots = prepared.reduce(0) { $0 + $1.fixtures.count }
let averageBytes = prepared.flatMap(\.messages).reduce(0) { $0 + $1.count } / max(1, snapshots)
output("matches \(matchIds.joined(separator: ",")): \(snapshots) snapshots, average message \(averageBytes) bytes")

let detector = MatchDetector()
func time(_ body: () -> Int) -> (Double, Int) {
    let start = DispatchTime.now().uptimeNanoseconds
    let events = body()
    return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, events)
}

for round in 1...rounds {
    let (detectSeconds, detectEvents) = time {
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
    let (pipelineSeconds, pipelineEvents) = time {
        var events = 0
        for item in prepared {
            var state: DetectorState?
            for bytes in item.messages {
                do {
                    let decoded = try SnapshotDecoding.decode(bytes)
                    let outcome = detector.process(fixture: decoded.fixture, matchId: decoded.matchId,
                                                   polledAt: decoded.polledAt, state: state)
                    for event in outcome.events { events += try MessageCodec.encode(event).isEmpty ? 0 : 1 }
                    state = outcome.state
                } catch { fail("\(error)") }
            }
        }
        return events
    }
    let detectRate = Double(snapshots) / detectSeconds
    let pipelineRate = Double(snapshots) / pipelineSeconds
    output(String(format: "round %d: detect %.0f snapshots/s (%d events)  pipeline %.0f snapshots/s (%d events)",
                  round, detectRate, detectEvents, pipelineRate, pipelineEvents))
}
