// The History sidebar section that stood here is now the history feature's own (features/history).
export {};
