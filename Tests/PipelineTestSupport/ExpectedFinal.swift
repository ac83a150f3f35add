import CricsheetReplay
import SharedTestSupport
import Foundation

/// The final score and result of a Cricsheet match, recomputed straight from the file
/// (independently of the feed, the detector and the formatting code).
public struct ExpectedFinal: Sendable {
    /// "runs/wickets" of every innings, in order.
    public var innings: [String]
    /// The result line: "India won by 7 runs".
    public var result: String

    public init(_ file: URL) throws {
        let match = try CricsheetMatch.load(contentsOf: file)
        innings = match.innings.map { inning in
            var runs = inning.penaltyRuns.map { ($0.pre ?? 0) + ($0.post ?? 0) } ?? 0
            var wickets = 0
            for over in inning.overs {
                for delivery in over.deliveries {
                    runs += delivery.runs.total
                    wickets += (delivery.wickets ?? []).filter { !["retired hurt", "retired not out"].contains($0.kind) }.count
                }
            }
            return wickets == 10 ? "\(runs)" : "\(runs)/\(wickets)"
        }
        result = ExpectedResultLine.of(match)
    }
}
