module fragbench/emulator

go 1.26
