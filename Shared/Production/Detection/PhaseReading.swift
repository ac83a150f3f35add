import Contracts
import Cricket

/// Maps a SportMonks status to the Live Activity phase.
public enum PhaseReading {
    /// The phase for `status`; `recognised` is false for a status string nobody documented (the caller logs
    /// and counts it). Unknown strings fall back on their wording, then on the previous phase, then on the balls.
    public static func phase(_ status: SportMonksStatus, previous: MatchPhase?, hasBalls: Bool)
        -> (phase: MatchPhase, recognised: Bool)
    {
        switch status {
        case .notStarted, .delayed, .postponed: return (.upcoming, true)
        case .innings, .superOver: return (.live, true)
        case .inningsBreak: return (.inningsBreak, true)
        case .lunch, .teaBreak, .dinner, .stumps, .interrupted: return (.interrupted, true)
        case .finished, .abandoned, .cancelled: return (.ended, true)
        case .unknown:
            switch status.phase {
            case .ended: return (.ended, false)
            case .inPlay: return (.live, false)
            case .notStarted: return (.upcoming, false)
            case .unknown: return (previous ?? (hasBalls ? .live : .upcoming), false)
            }
        }
    }

    /// The status line of a stoppage: "Lunch", "Tea", "Stumps · Day 2", "Play interrupted".
    public static func stoppageText(_ status: SportMonksStatus) -> String {
        switch status {
        case .lunch: "Lunch"
        case .teaBreak: "Tea"
        case .dinner: "Dinner"
        case .stumps(let day): "Stumps · Day \(day)"
        case .interrupted: "Play interrupted"
        case .delayed: "Start delayed"
        case .postponed: "Match postponed"
        default: "Play stopped"
        }
    }
}
