import Testing
@testable import Preferences
