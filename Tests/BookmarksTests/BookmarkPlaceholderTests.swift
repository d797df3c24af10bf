import Testing
@testable import Bookmarks
