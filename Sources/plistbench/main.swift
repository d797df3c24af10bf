import PlistKit
print("plistbench: not implemented yet")
