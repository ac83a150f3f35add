import Contracts

/// Shrinks a display state whose payload exceeds APNs' 4,096 bytes, in steps that keep the score:
/// 1. drop the last-balls strip and cut free text (titles, status, lock-screen lines, names) to 60 characters;
/// 2. cut them to 24 characters and drop the batters, bowler, target and equation lines.
/// The alert body is cut to 100, then 40 characters alongside. Scores, overs and rates are never touched.
enum PayloadTrimmer {
    /// The trimming steps, mildest first.
    static let steps: [(text: Int, alert: Int, dropDetail: Bool)] = [(60, 100, false), (24, 40, true)]

    static func trimmed(_ payload: LiveActivityPayload, step: Int) -> LiveActivityPayload {
        let (limit, alertLimit, dropDetail) = steps[step]
        var copy = payload
        var state = copy.contentState
        let cut = { (text: String, count: Int) -> String in text.count <= count ? text : String(text.prefix(count - 1)) + "…" }
        state.title = cut(state.title, limit)
        state.subtitle = cut(state.subtitle, limit)
        state.statusText = cut(state.statusText, limit)
        state.resultLine = state.resultLine.map { cut($0, limit) }
        state.lockScreen.headline = cut(state.lockScreen.headline, limit)
        state.lockScreen.detail = cut(state.lockScreen.detail, limit)
        state.lockScreen.footer = cut(state.lockScreen.footer, limit)
        state.expanded.lastBalls = []
        state.expanded.batting.name = cut(state.expanded.batting.name, limit)
        state.expanded.bowling.name = cut(state.expanded.bowling.name, limit)
        state.expanded.batters = state.expanded.batters.map { .init(name: cut($0.name, limit), score: $0.score, onStrike: $0.onStrike) }
        state.expanded.bowler = state.expanded.bowler.map { .init(name: cut($0.name, limit), figures: $0.figures) }
        state.expanded.target = state.expanded.target.map { cut($0, limit) }
        state.expanded.equation = state.expanded.equation.map { cut($0, limit) }
        if dropDetail {
            state.expanded.batters = []
            state.expanded.bowler = nil
            state.expanded.target = nil
            state.expanded.equation = nil
        }
        copy.contentState = state
        copy.alert = copy.alert.map { .init(title: cut($0.title, alertLimit), body: cut($0.body, alertLimit), sound: $0.sound) }
        return copy
    }
}
