/// Random lower-case hex strings standing in for APNs tokens.
enum HexToken {
    /// `length` hex characters (64 for a device token, 160 for Live Activity tokens).
    static func random(length: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return random(length: length, using: &generator)
    }

    static func random(length: Int, using generator: inout some RandomNumberGenerator) -> String {
        let digits = Array("0123456789abcdef")
        return String((0..<length).map { _ in digits[Int(generator.next() % 16)] })
    }
}
