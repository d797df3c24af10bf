import PlistKit
print("plutil: not implemented yet")
