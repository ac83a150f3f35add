import CricsheetReplay
import DevStack
import Foundation
import PipelineTestSupport
import Runtime
import Synchronization
import SharedTestSupport
import Testing

/// Issue 41: every ball counted when the feed jumps across an innings change between two polls, through the real
/// processes (fake-sportmonks → poller → Kafka → detector). The replay is paused and moved by `seek`, so each
/// catch-up is one poll that holds exactly the balls of the jump, whatever the machine's speed:
/// - the previous innings' last balls and the change in one snapshot (a Test's first innings from eight down to
///   two balls into the second: the two wickets and every four between them);
/// - two or three innings changes in one gap (a Test's second innings into its fourth; a T20's main innings
///   into its second super over);
/// - the match's end in the same gap (the last balls and the result).
/// After each jump the detector's event counts must equal the counts of Cricsheet's own deliveries up to there.
@Suite(.serialized) struct CatchUpAcrossBreaksTests {
    /// Where the replay is moved, in order: deliveries bowled and, when given, the phase (nil deliveries: the
    /// final position). Consecutive positions are one poll apart.
    static func stops(_ match: CricsheetMatch) -> [(deliveries: Int?, phase: String?)] {
        var ends: [Int] = []
        for innings in match.innings where innings.deliveryCount > 0 { ends.append((ends.last ?? 0) + innings.deliveryCount) }
        if match.innings.count == 4, match.info.overs == nil {
            // The first innings' eighth team wicket.
            var wickets = 0, eighth = 1
            for (index, delivery) in match.innings[0].overs.flatMap(\.deliveries).enumerated() {
                wickets += (delivery.wickets ?? []).filter { !["retired hurt", "retired not out"].contains($0.kind) }.count
                if wickets >= 8 { eighth = index + 1; break }
            }
            return [(eighth, nil), (ends[0] + 2, nil), (ends[1] - 5, nil), (ends[2] + 2, nil), (match.totalDeliveries - 6, nil), (nil, nil)]
        }
        // A T20 with two super overs: into the break, out of it two balls on; across three changes; the last
        // super over and the end.
        return [(ends[0] - 3, nil), (ends[0], "inningsBreak"), (ends[0] + 2, nil), (ends[1] - 4, nil), (ends[3] + 1, nil), (nil, nil)]
    }

    @Test(.timeLimit(.minutes(6)), arguments: [1152848, 1216517])
    func everyBallCountedAcrossTheChange(match matchId: Int) async throws {
        try PipelineEnvironment.requireServers()
        let options = DevStackOptions(
            binDirectory: try PipelineEnvironment.binDirectory(),
            logDirectory: PipelineEnvironment.stackDirectory.appendingPathComponent("logs/catch-up-\(matchId)"),
            materialDirectory: PipelineEnvironment.stackDirectory.appendingPathComponent("dev"),
            cricsheetDirectory: try PipelineEnvironment.cricsheetDirectory(), matchId: matchId,
            idOffset: DevStackOptions.freshIdOffset(), speed: 1, breakSteps: 2, devices: 0, ports: try DevPorts.free(),
            kafkaBrokers: PipelineEnvironment.kafkaBrokers, databaseURL: PipelineEnvironment.databaseURL,
            pollIntervalMs: 300, orchestratorIntervalMs: 2000)
        let stack = try DevStack(plan: DevStackPlan(options: options), logger: Logger(label: "catch-up", minimumLevel: .warning))
        await stack.runRecordingFailure { try await run($0) }
    }

    func run(_ stack: DevStack) async throws {
        let match = try CricsheetMatch.load(contentsOf: stack.options.matchFile)
        let raw = try JSONSerialization.jsonObject(with: Data(contentsOf: stack.options.matchFile)) as? [String: Any] ?? [:]
        try await stack.launch(startDelay: .zero)
        try await stack.controlReplay("pause")
        // The detector knows the match (a state with its first snapshot) before any jump.
        try await stack.waitFor("the detector's first snapshot of the match", timeout: .seconds(60)) {
            try await stack.count("SELECT count(*) FROM active_matches WHERE match_id = $1") >= 1
        }
        let detectorMetrics = stack.plan.serviceURL("detector")! + "/metrics"
        let kinds = ["four", "six", "wicket", "fifty", "hundred", "fiveFor"]
        @Sendable func counts() async throws -> [String: Int] {
            let text = try await DevHTTP().get(detectorMetrics).text
            return Dictionary(uniqueKeysWithValues: kinds.map { ($0, Int(PrometheusText.sum(text, metric: "detector_events_total", matching: ["kind": $0]))) })
        }
        func moveAndCheck(_ deliveries: Int?, phase: String?, _ label: String) async throws {
            let body = if let deliveries {
                phase.map { #"{"delivery": \#(deliveries), "phase": "\#($0)"}"# } ?? #"{"delivery": \#(deliveries)}"#
            } else {
                #"{"delivery": \#(match.totalDeliveries), "phase": "finished"}"#
            }
            try await stack.controlReplay("seek", json: body)
            let expected = CricsheetCounts(raw: raw, deliveries: deliveries)
            let wanted = Dictionary(uniqueKeysWithValues: kinds.map { ($0, expected.total($0)) })
            let seen = LockedValue<[String: Int]>([:])
            do {
                try await stack.waitFor("\(label): the detector's counts equal Cricsheet's \(wanted)", timeout: .seconds(60)) {
                    let now = try await counts()
                    seen.withLock { $0 = now }
                    return now == wanted
                }
            } catch {
                Issue.record("\(label): the detector counted \(seen.withLock { $0 }), Cricsheet's deliveries \(wanted)")
                throw error
            }
        }
        var previous = "the start"
        for stop in Self.stops(match) {
            let here = stop.deliveries.map { "\($0) deliveries\(stop.phase.map { " (\($0))" } ?? "")" } ?? "the end"
            try await moveAndCheck(stop.deliveries, phase: stop.phase, "from \(previous) to \(here)")
            previous = here
        }
        try await stack.waitFor("the result", timeout: .seconds(60)) {
            let text = try await DevHTTP().get(detectorMetrics).text
            return PrometheusText.sum(text, metric: "detector_events_total", matching: ["kind": "result"]) == 1
        }
        let final = try #require(try await stack.finalDisplayState(String(stack.options.fixtureId)))
        #expect(final.resultLine == ExpectedResultLine.of(match))
    }
}
