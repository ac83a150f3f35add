// codec-bench: what MessageCodec costs per message, and what parsing once saved (issue 16, item 4).
//
// For the largest messages the services read (a push.jobs message with 1,000 targets, ≈ 240 kB, what apns-sender
// takes off Kafka per chunk; a match.events message), prints microseconds of this thread's CPU per
//   - decode: MessageCodec.decode now (one typed parse; the schema read from the result);
//   - decode, two parses: what it did before (JSONSerialization for `schema`, then JSONDecoder on the same bytes);
//   - encode: MessageCodec.encode.
//
//   codec-bench [--rounds N]   (release build: swift build -c release --product codec-bench)
import Contracts
import Foundation

func output(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

/// CPU seconds of the calling thread.
func threadCPU() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// Microseconds of CPU per call of `body`, the best of `rounds` rounds of `count` calls.
func measure(rounds: Int, count: Int, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<rounds {
        let start = threadCPU()
        for _ in 0..<count { try body() }
        best = min(best, (threadCPU() - start) / Double(count) * 1e6)
    }
    return best
}

/// The decode before issue 16: the bytes parsed twice on every message.
func twoParseDecode<Message: VersionedMessage>(_ type: Message.Type, _ bytes: [UInt8]) throws -> Message {
    let data = Data(bytes)
    guard let members = try JSONSerialization.jsonObject(with: data) as? [String: Any],
          (members["schema"] as? NSNumber)?.intValue == Message.currentSchema else { throw CocoaError(.coderInvalidValue) }
    return try JSONDecoder().decode(Message.self, from: data)
}

func pushJob(targets: Int) -> PushJob {
    let payload = #"{"aps":{"content-state":{"matchId":"1152848","statusText":"Day 2 · Session 2 · ENG trail by 41"},"event":"update","timestamp":1800000000}}"#
        + String(repeating: " ", count: 2_800)
    return PushJob(
        jobId: "1152848:812:7:0", kind: .liveActivityUpdate, matchId: "1152848", stateSeq: 812, priority: 5, expiration: 1_800_000_120,
        relevanceScore: 5, payload: payload,
        targets: (0..<targets).map { index in
            PushTarget(token: String(repeating: String(format: "%02x", index % 256), count: 80), env: index % 10 == 0 ? .sandbox : .production,
                       userId: "user-\(index)", deviceId: "device-\(index % 3)")
        },
        createdAt: 1_800_000_000_000)
}

func matchEvent() throws -> MatchBusEvent {
    let state = try JSONDecoder().decode(UnifiedDisplayState.self, from: Data(#"""
        {"matchId":"1152848","matchDisplayState":"live","title":"Australia vs England","subtitle":"1st Test · Edgbaston",
         "statusText":"Day 2 · Session 2 · ENG trail by 41","compactLeading":{"teamAbbr":"ENG","score":"138/3"},
         "compactTrailing":{"overs":"41.2","runRate":"3.34"},"minimal":{"text":"138/3"},
         "expanded":{"batting":{"abbr":"ENG","name":"England","score":"138/3","overs":"41.2"},
                     "bowling":{"abbr":"AUS","name":"Australia","score":"179","overs":"52"},"batters":[],"bowler":null,
                     "lastBalls":["1","0","4","W","0","2"],"target":null,"equation":null,"runRate":"3.34","requiredRate":null},
         "lockScreen":{"headline":"ENG 138/3","detail":"AUS 179","footer":"Four! Root 57*"},"resultLine":null,"updatedAt":1800000000}
        """#.utf8))
    return MatchBusEvent(eventId: "1152848:812", matchId: "1152848", seq: 812, emittedAt: 1_800_000_000_000, displayState: state,
                         keyEvent: KeyEvent(kind: .four, priority: 5, alert: nil), phase: .live)
}

let arguments = CommandLine.arguments
let rounds = arguments.firstIndex(of: "--rounds").flatMap { Int(arguments[$0 + 1]) } ?? 5

func report<Message: VersionedMessage>(_ name: String, _ message: Message, count: Int) throws {
    let bytes = try MessageCodec.encode(message)
    let once = try measure(rounds: rounds, count: count) { _ = try MessageCodec.decode(Message.self, from: bytes) }
    let twice = try measure(rounds: rounds, count: count) { _ = try twoParseDecode(Message.self, bytes) }
    let encode = try measure(rounds: rounds, count: count) { _ = try MessageCodec.encode(message) }
    output(String(format: "%@ (%d bytes): decode %.0f µs, decode with two parses %.0f µs (%.0f%% saved), encode %.0f µs",
                  name, bytes.count, once, twice, (1 - once / twice) * 100, encode))
}

try report("push.jobs, 1,000 targets", pushJob(targets: 1_000), count: 20)
try report("push.jobs, 1 target", pushJob(targets: 1), count: 500)
try report("match.events", try matchEvent(), count: 500)
