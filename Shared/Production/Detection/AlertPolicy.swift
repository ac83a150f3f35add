import Contracts

/// Which events alert (priority 10 with {title, body}) and which are silent (priority 5).
///
/// Alert-worthy: wicket, fifty, hundred, five-for, hat-trick, innings end, result (the design's list), plus
/// - super over start: rare and decisive; followers of a tied match want to know the Super Over is on;
/// - a *revised* target (D/L): it changes what the chasing side needs mid-match and nothing else tells them.
/// Silent: fours, sixes, runs, match start (the push-to-start already says it), the first target (the
/// innings-end alert carries it), interruptions and resumptions (rain can stop and start many times; the
/// Lock Screen shows "Play interrupted" without buzzing), close of play (its end push shows the state).
///
/// Within one snapshot only the most important alert sounds (result > hat-trick > five-for > hundred >
/// super over > fifty > innings end > wicket > revised target); the others are emitted silently, so one
/// delivery that is a wicket, a five-for and a hat-trick buzzes once, with the hat-trick.
public enum AlertPolicy {
    /// True when `event` deserves an alert (before coalescing and cooldowns).
    public static func isAlertWorthy(_ event: DetectedEvent) -> Bool {
        switch event.kind {
        case .wicket, .fifty, .hundred, .fiveFor, .hatTrick, .inningsEnd, .result, .superOver: true
        case .targetSet: event.isRevision
        case .matchStart, .runs, .four, .six, .interruption, .resumed, .stumps, .matchEnd: false
        }
    }

    /// Importance for coalescing: higher wins.
    public static func rank(_ kind: KeyEventKind) -> Int {
        switch kind {
        case .result, .matchEnd: 100
        case .hatTrick: 90
        case .fiveFor: 80
        case .hundred: 70
        case .superOver: 65
        case .fifty: 60
        case .inningsEnd: 55
        case .wicket: 50
        case .targetSet: 45
        case .interruption, .resumed, .stumps: 20
        case .six: 12
        case .four: 11
        case .matchStart, .runs: 0
        }
    }

    /// Decides the key events of one snapshot's detected events: at most one alert, subject to cooldowns.
    /// Updates `cooldowns` for the alert that sounds.
    public static func keyEvents(for events: [DetectedEvent], cooldowns: inout Cooldowns, now: Int64) -> [KeyEvent] {
        let candidates = events.indices.filter { isAlertWorthy(events[$0]) }
            .sorted { rank(events[$0].kind) > rank(events[$1].kind) || (rank(events[$0].kind) == rank(events[$1].kind) && $0 < $1) }
        let alerting = candidates.first { cooldowns.allows(events[$0].kind, at: now) }
        if let alerting { cooldowns.record(events[alerting].kind, at: now) }
        return events.indices.map { index in
            let event = events[index]
            guard index == alerting else { return KeyEvent(kind: event.kind, priority: 5, alert: nil) }
            return KeyEvent(kind: event.kind, priority: 10, alert: Alert(title: event.title, body: event.body))
        }
    }
}
