import Foundation

/// What a fixture says about the shape of its overs.
extension SportMonksFixture {
    /// Legal balls in one of the feed's "overs": 5 in The Hundred (its 100 balls an innings are split into 20 sets of
    /// five, and every overs number — `runs[].overs`, a ball's `ball`, D/L overs — counts those sets), 6 otherwise.
    public var ballsPerOver: Int { isHundred ? 5 : 6 }

    /// True for The Hundred, which the feed marks only by name: its `type` or its league ("The Hundred Men's
    /// Competition") says "Hundred" (its `type` may read "T20", and its `total_overs_played` 20, counting sets).
    public var isHundred: Bool {
        Self.namesHundred(type) || Self.namesHundred(league?.name)
    }

    static func namesHundred(_ text: String?) -> Bool {
        text?.range(of: "hundred", options: .caseInsensitive) != nil
    }
}
